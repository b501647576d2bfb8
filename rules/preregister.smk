# The decision rule as configured now (plan.json), and the preregistration: written by the free
# stages before any paid call (rule contexts waits for it). Every input of `preregister` is
# ancient and it has no params, so nothing but a missing file (or -R preregister, as `make
# preregister` does after bringing its inputs up to date) writes it again: the report compares
# the run with it (rule pairs).


localrules:
    preregister_plan,


rule preregister_plan:
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
            "fallback_variant": P.setting("pairs.fallback_variant"),
            **{
                key: P.setting("pairs")[key]
                for key in (
                    "alpha",
                    "power",
                    "seed",
                    "resamples",
                    "planning_diffs",
                    "smallest_effect",
                    "equivalence_margin",
                    "interval",
                )
            },
            "generation_model": P.generation_model,
            "generation_prices": generation_prices(),
            "cluster_key": P.setting("questions.cluster_key"),
            "groups": P.setting("questions.groups"),
            "secondary": {
                "variant_pairs": P.setting("pairs.variant_pairs"),
                "ks": P.setting("score.ks"),
                "correction": P.setting("pairs.secondary_correction"),
            },
            "secondary_comparisons": P.comparisons(),
            "free_conditions": [c.name for c in P.conditions if c.variant.name not in P.paid_variants],
            "paid_variants": P.paid_variants,
            "language": P.setting("report.language"),
            "seconds_per_call": P.setting("contexts.seconds_per_call"),
            "corpus": CORPUS,
            "corpus_language": P.language,
            "corpus_files": corpus_files(CORPUS),
            "settings": P.committed_settings(),
        },
    script:
        "../scripts/ctxret/stages/preregister.py"


# The questions each candidate measure needs for pairs.smallest_effect, from the free pilot (the
# first primary's planning pair on its group's human questions), and what generating them costs:
# the preregistration states it, and a generated set with n: auto asks that many. Part of the
# preregistration, so written with it: once one is written every input is ancient (a question edit
# or a changed setting reruns nothing; `make preregister` forces it with the preregistration);
# before, a mended pairs.primary or questions.groups plans again (n: auto reads it first).
rule preregister_effect:
    input:
        plan=frozen(P.plan_file),
        chunks=frozen(P.chunks()),
        gold=frozen(P.gold()),
        runs=[frozen(run) for run in free_runs()],
        question_prompts=frozen(workflow_file(P.question_prompts)),
    output:
        json=P.smallest_effect,
    log:
        P.log("preregister_effect"),
    conda:
        "../envs/data.yaml"
    params:
        generated_sets=P.generated_sets,
    script:
        "../scripts/ctxret/stages/preregister.py"


rule preregister:
    input:
        plan=ancient(P.plan_file),
        docs=ancient(P.docs),
        chunks=ancient(P.chunks()),
        questions=ancient(P.questions),
        sets=ancient(P.question_sets),
        gold=ancient(P.gold()),
        # the deep runs (their first search.top_k are the scored ones): search_cut also cuts A1's runs
        runs=[ancient(run) for run in free_runs()],
        estimates=[ancient(P.context_estimate(v)) for v in P.paid_variants],
        embed_time=ancient(P.embed_time),
        effect=P.smallest_effect,  # written with the preregistration only (its inputs are ancient)
    output:
        json=P.preregistration,
        md=P.preregistration_md,
    log:
        P.log("preregister"),
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/ctxret/stages/preregister.py"
