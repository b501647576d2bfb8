from ctxret.stages import preregister
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, preregister.run_plan)  # noqa: F821 (Snakemake's script global)
