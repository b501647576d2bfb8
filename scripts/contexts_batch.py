from ctxret.stages import contexts
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, contexts.run_batch)  # noqa: F821 (Snakemake's script global)
