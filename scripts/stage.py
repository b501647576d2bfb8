"""The entry of every rule (`script: "../scripts/stage.py"`): the stage function its rule runs
(ctxret.stages.ENTRIES), with the job's files, params, threads and resources."""
from ctxret.stage import snakemake_stage
from ctxret.stages import entry

snakemake_stage(snakemake, entry(snakemake.rule))  # noqa: F821 (Snakemake's script global)
