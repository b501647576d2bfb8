from ctxret.stages import questions
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, questions.run)  # noqa: F821 (Snakemake's script global)
