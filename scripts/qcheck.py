from ctxret.stages import qcheck
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, qcheck.run)  # noqa: F821 (Snakemake's script global)
