from ctxret.stages import manifest
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, manifest.run)  # noqa: F821 (Snakemake's script global)
