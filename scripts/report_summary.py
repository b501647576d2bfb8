from ctxret import report
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, report.run)  # noqa: F821 (Snakemake's script global)
