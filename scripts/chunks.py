from ctxret.stages import chunks
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, chunks.run)  # noqa: F821 (Snakemake's script global)
