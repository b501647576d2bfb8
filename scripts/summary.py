from ctxret.stages import summary
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, summary.run)  # noqa: F821 (Snakemake's script global)
