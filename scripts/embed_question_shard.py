from ctxret.stages import embed
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, embed.run_question_shard)  # noqa: F821 (Snakemake's script global)
