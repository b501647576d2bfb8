from ctxret.stages import explorer
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, explorer.run)  # noqa: F821 (Snakemake's script global)
