# The reader's view: plots and one summary page, collected by `snakemake --report results/report.html`.


report: "../report/workflow.rst"


rule plots:
    input:
        score=f"{R}/score.json",
        pairs=f"{R}/pairs.json",
    output:
        failure=report(f"{R}/report/failure.png", caption="../report/failure.rst", category="2 Score"),
        pairs=report(f"{R}/report/pairs.png", caption="../report/pairs.rst", category="3 Pairs"),
    log:
        f"{R}/logs/plots.log",
    conda:
        "../envs/report.yaml"
    params:
        kinds={name: r.kind for name, r in P.retrievers.items()},  # dense, bm25, hybrid or reranked
        language=config["report"]["language"],
    script:
        "../scripts/stage.py"


rule summary:
    input:
        score=f"{R}/score.json",
        pairs=f"{R}/pairs.json",
        failure=f"{R}/report/failure.png",
        pairs_plot=f"{R}/report/pairs.png",
        ledgers=[f"{R}/ctx/{v}/stats.json" for v in P.context_variants],
        tokens=f"{R}/tokens.json",
        precision=f"{R}/precision.json",
        explorer=f"{R}/report/explorer.html",  # linked from the page
    output:
        html=report(f"{R}/report/summary.html", caption="../report/summary.rst", category="1 Summary"),
    log:
        f"{R}/logs/summary.log",
    conda:
        "../envs/report.yaml"
    params:
        ledger_variants=list(P.context_variants),
        language=config["report"]["language"],
    script:
        "../scripts/stage.py"


rule explorer:
    input:
        gold=f"{R}/gold.json",
        chunks=f"{R}/chunks.jsonl",
        pairs=f"{R}/pairs.json",
        runs=[P.run_file(r, v) for r, v in names_of(P.conditions)],
        contexts=[f for v in P.context_variants for f in P.context_files(v, KEPT_SLUGS)],
    output:
        html=report(f"{R}/report/explorer.html", caption="../report/explorer.rst", category="1 Summary"),
    log:
        f"{R}/logs/explorer.log",
    conda:
        "../envs/report.yaml"
    params:
        conditions=names_of(P.conditions),
        groups=config["questions"]["groups"],
        kinds={name: r.kind for name, r in P.retrievers.items()},
        context_variants=list(P.context_variants),
        language=config["report"]["language"],
    script:
        "../scripts/stage.py"
