from ctxret.stages import plots
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, plots.run)  # noqa: F821 (Snakemake's script global)
