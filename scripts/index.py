from ctxret.stages import index
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, index.run)  # noqa: F821 (Snakemake's script global)
