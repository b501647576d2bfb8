# chunking.compare: every strategy's T1 scored strict, loose and by passage on the main group,
# each paired with the experiment's own chunker (results/chunking.md).


rule chunking:
    input:
        docs=f"{R}/docs.jsonl",
        questions=QUESTIONS,
        chunks=[P.chunks_file(c.name) for c in P.chunkers],
        gold=[f"{R}/gold{c.tag}.json" for c in P.chunkers],
        runs=[P.run_file(r, s["variant"]) for s in P.chunking_strategies() for r in s["retrievers"]],
    output:
        md=f"{R}/chunking.md",
        json=f"{R}/chunking.json",
        audit=f"{R}/chunking-audit.tsv",
        plot=report(f"{R}/report/chunking.png", caption="../report/chunking.rst", category="4 Chunking"),
    log:
        f"{R}/logs/chunking.log",
    conda:
        "../envs/report.yaml"
    params:
        strategies=P.chunking_strategies(),
        sets=config["questions"]["groups"][config["score"]["main_group"]],
        k=config["score"]["ks"][0],
        mrr_k=config["score"]["mrr_k"],
        cluster_key=config["questions"]["cluster_key"],
        seed=config["pairs"]["seed"],
        resamples=config["pairs"]["resamples"],
    script:
        "../scripts/stage.py"
