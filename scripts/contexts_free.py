from ctxret import contexts
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, contexts.run_free)  # noqa: F821 (Snakemake's script global)
