from ctxret.stages import ctxreport
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, ctxreport.run_stats)  # noqa: F821 (Snakemake's script global)
