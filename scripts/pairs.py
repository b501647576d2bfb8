from ctxret.stages import pairs
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, pairs.run)  # noqa: F821 (Snakemake's script global)
