from ctxret.stages import variants
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, variants.run)  # noqa: F821 (Snakemake's script global)
