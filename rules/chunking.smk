# chunking.compare: every strategy's T1 scored strict, loose and by passage on the main group,
# each paired with the experiment's own chunker (results/chunking.md).


rule chunking:
    input:
        docs=P.docs,
        questions=P.questions,
        chunks=[P.chunks(c.tag) for c in P.chunkers],
        gold=[P.gold(c.tag) for c in P.chunkers],
        runs=[P.run_file(r, s["variant"]) for s in P.chunking_strategies() for r in s["retrievers"]],
    output:
        md=P.chunking_md,
        json=P.chunking_json,
        audit=P.chunking_audit,
        plot=report(P.plot("chunking"), caption="../report/chunking.rst", category="4 Chunking"),
    log:
        P.log("chunking"),
    conda:
        "../envs/report.yaml"
    params:
        strategies=P.chunking_strategies(),
        sets=P.setting("questions.groups")[P.setting("score.main_group")],
        k=P.setting("score.ks")[0],
        mrr_k=P.setting("score.mrr_k"),
        cluster_key=P.setting("questions.cluster_key"),
        seed=P.setting("pairs.seed"),
        resamples=P.setting("pairs.resamples"),
    script:
        "../scripts/ctxret/stages/chunking.py"
