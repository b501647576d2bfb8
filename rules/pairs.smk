rule pairs:
    input:
        gold=P.gold(),
        sets=P.question_sets,
        chunks=P.chunks(),
        runs=[P.run_file(r, v) for r, v in names_of(P.conditions)],
        questions=P.questions,
        plan=ancient(P.plan_file),  # read when the rule changes (params below), not rerun for it
        preregistration=P.preregistration,
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
        fallback_variant=config["pairs"]["fallback_variant"],
        alpha=config["pairs"]["alpha"],
        power=config["pairs"]["power"],
        groups=config["questions"]["groups"],
        ks=config["score"]["ks"],
        continuous=[f"RR@{config['score']['mrr_k']}", f"nDCG@{config['score']['ndcg_k']}"],
        cluster_key=config["questions"]["cluster_key"],
        corpus=ABOUT_CORPUS,
        title=TITLE,
        seed=config["pairs"]["seed"],
        resamples=config["pairs"]["resamples"],
        language=config["report"]["language"],
    script:
        "../scripts/stage.py"
