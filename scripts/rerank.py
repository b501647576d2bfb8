from ctxret.stages import rerank
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, rerank.run)  # noqa: F821 (Snakemake's script global)
