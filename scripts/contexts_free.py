from ctxret.stages import contexts_free
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, contexts_free.run)  # noqa: F821 (Snakemake's script global)
