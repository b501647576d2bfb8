from ctxret.stages import prep
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, prep.run)  # noqa: F821 (Snakemake's script global)
