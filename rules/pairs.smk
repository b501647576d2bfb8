rule pairs:
    input:
        gold=P.gold(),
        sets=P.question_sets,
        chunks=P.chunks(),
        runs=[P.run_file(r, v) for r, v in names_of(P.conditions)],
        questions=P.questions,
        plan=ancient(P.plan_file),  # read when the rule changes (params below), not rerun for it
        preregistration=P.preregistration,
        judgments=[P.judgments(name) for name in P.judged_sets],
    output:
        md=P.pairs_md,
        json=P.pairs_json,
    log:
        P.log("pairs"),
    conda:
        "../envs/data.yaml"
    params:
        conditions=names_of(P.conditions),
        comparisons=P.comparisons(),
        primary=P.primary,
        fallback_used=P.fallback_used,
        fallback_variant=P.setting("pairs.fallback_variant"),
        paid_variants=P.paid_variants,
        alpha=P.setting("pairs.alpha"),
        power=P.setting("pairs.power"),
        equivalence_margin=P.setting("pairs.equivalence_margin"),
        secondary_correction=P.setting("pairs.secondary_correction"),
        interval=P.setting("pairs.interval"),
        groups=P.setting("questions.groups"),
        ks=P.setting("score.ks"),
        continuous=[f"RR@{P.setting('score.mrr_k')}", f"nDCG@{P.setting('score.ndcg_k')}"],
        cluster_key=P.setting("questions.cluster_key"),
        corpus=ABOUT_CORPUS,
        title=TITLE,
        seed=P.setting("pairs.seed"),
        resamples=P.setting("pairs.resamples"),
        language=P.setting("report.language"),
    script:
        "../scripts/ctxret/stages/pairs.py"
