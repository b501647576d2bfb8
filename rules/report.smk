# The reader's view: plots and one summary page, collected by `snakemake --report results/report.html`.


report: "../report/workflow.rst"


rule plots:
    input:
        score=P.score_json,
        pairs=P.pairs_json,
    output:
        failure=report(P.plot("failure"), caption="../report/failure.rst", category="2 Score"),
        pairs=report(P.plot("pairs"), caption="../report/pairs.rst", category="3 Pairs"),
    log:
        P.log("plots"),
    conda:
        "../envs/report.yaml"
    params:
        kinds={name: r.kind for name, r in P.retrievers.items()},  # dense, bm25, hybrid or reranked
        language=P.setting("report.language"),
    script:
        "../scripts/ctxret/stages/plots.py"


rule summary:
    input:
        score=P.score_json,
        pairs=P.pairs_json,
        failure=P.plot("failure"),
        pairs_plot=P.plot("pairs"),
        ledgers=[P.context_stats(v) for v in P.context_variants],
        tokens=P.tokens,
        precision=P.precision_file,
        explorer=P.explorer_page,  # linked from the page
    output:
        html=report(P.summary_page, caption="../report/summary.rst", category="1 Summary"),
    log:
        P.log("summary"),
    conda:
        "../envs/report.yaml"
    params:
        ledger_variants=list(P.context_variants),
        language=P.setting("report.language"),
    script:
        "../scripts/ctxret/stages/summary.py"


rule explorer:
    input:
        **{v: P.context_files(v, KEPT_SLUGS) for v in P.context_variants},  # each context variant's files
        gold=P.gold(),
        chunks=P.chunks(),
        pairs=P.pairs_json,
        runs=[P.run_file(r, v) for r, v in names_of(P.conditions)],
    output:
        html=report(P.explorer_page, caption="../report/explorer.rst", category="1 Summary"),
    log:
        P.log("explorer"),
    conda:
        "../envs/report.yaml"
    params:
        conditions=names_of(P.conditions),
        groups=P.setting("questions.groups"),
        kinds={name: r.kind for name, r in P.retrievers.items()},
        context_variants=list(P.context_variants),
        language=P.setting("report.language"),
    script:
        "../scripts/ctxret/stages/explorer.py"
