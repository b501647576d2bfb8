from ctxret.stages import chunking
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, chunking.run)  # noqa: F821 (Snakemake's script global)
