from ctxret.stages import cut
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, cut.run)  # noqa: F821 (Snakemake's script global)
