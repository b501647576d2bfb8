from ctxret.stages import ctxlen
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, ctxlen.run)  # noqa: F821 (Snakemake's script global)
