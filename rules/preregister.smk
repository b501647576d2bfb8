# The decision rule as configured now (plan.json), and the preregistration: written by the free
# stages before any paid call (rule contexts waits for it). Every input of `preregister` is
# ancient and it has no params, so nothing but a missing file (or -R preregister, as `make
# preregister` does after bringing its inputs up to date) writes it again: the report compares
# the run with it (rule pairs).


localrules:
    plan,


rule plan:
    input:
        precision=ancient(P.precision_file),  # recorded: the precision each model slot embeds at
    output:
        json=P.plan_file,
    log:
        P.log("plan"),
    conda:
        "../envs/data.yaml"
    resources:
        # the A1 documents in flight, recorded without being a rerun trigger (a param would be)
        llm_workers_planned=llm_workers(),
    params:
        plan={
            "primary": P.primary,
            "dense": P.dense,
            "fallback_used": P.fallback_used,
            "fallback_variant": config["pairs"]["fallback_variant"],
            **{key: config["pairs"][key] for key in ("alpha", "power", "seed", "resamples", "planning_diffs")},
            "cluster_key": config["questions"]["cluster_key"],
            "groups": config["questions"]["groups"],
            "secondary": {
                "variant_pairs": config["pairs"]["variant_pairs"],
                "ks": config["score"]["ks"],
                "correction": "holm",
            },
            "secondary_comparisons": P.comparisons(),
            "free_conditions": [c.name for c in P.conditions if c.variant.name != "A1"],
            "language": config["report"]["language"],
            "seconds_per_call": config["contexts"]["seconds_per_call"],
            "corpus": CORPUS,
            "corpus_language": P.language,
            "corpus_files": corpus_files(CORPUS),
            "settings": P.committed_settings(),
        },
    script:
        "../scripts/stage.py"


rule preregister:
    input:
        plan=ancient(P.plan_file),
        docs=ancient(P.docs),
        chunks=ancient(P.chunks()),
        questions=ancient(P.questions),
        sets=ancient(P.question_sets),
        gold=ancient(P.gold()),
        # the deep runs (their first search.top_k are the scored ones): cut_runs also cuts A1's runs
        runs=[
            ancient((P.run_file if c.retriever.kind == "reranked" else P.deep_run)(c.retriever.name, c.variant.name))
            for c in P.conditions
            if c.variant.name != "A1"
        ],
        estimate=[ancient(P.context_estimate("A1"))] if "A1" in P.context_variants else [],
    output:
        json=P.preregistration,
        md=P.preregistration_md,
    log:
        P.log("preregister"),
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/stage.py"
