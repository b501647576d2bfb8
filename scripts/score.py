from ctxret.stages import score
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, score.run)  # noqa: F821 (Snakemake's script global)
