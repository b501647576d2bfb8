"""ctxret.runtime: running the workflow. A stage's job (`stage_runner`: its log, its one-line
errors, what it read checked and what it wrote recorded), the records of what each job wrote
(`output_records`), the run lock (`run_lock`), the fix to Snakemake's needrun mask
(`ancient_edges`), and `python -m ctxret` (`launch`). May import config, retrieval and the shared
leaves."""
