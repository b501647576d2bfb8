from ctxret.stages import search
from ctxret.stage import snakemake_stage

snakemake_stage(snakemake, search.run_dense)  # noqa: F821 (Snakemake's script global)
