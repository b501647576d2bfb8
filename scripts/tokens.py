from ctxret.stages import tokens
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, tokens.run)  # noqa: F821 (Snakemake's script global)
