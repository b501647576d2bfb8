# Reruns when the questions' content changes (params.content, hashed when the workflow is
# parsed), not when a file is only touched or reformatted (ancient: its mtime is ignored).
rule questions:
    input:
        [ancient(path) for path in QUESTION_FILES],
    output:
        questions=P.questions,
        sets=P.question_sets,
    log:
        P.log("questions"),
    conda:
        "../envs/data.yaml"
    params:
        sets=QUESTION_SETS,
        corpus=CORPUS,
        content=QUESTIONS_CONTENT,
    script:
        "../scripts/ctxret/stages/questions.py"


# gold.json for the experiment's chunks; gold-<chunker>.json for a compared strategy's, never
# strict there (the comparison lists the passages a strategy splits).
rule qcheck:
    input:
        docs=P.docs,
        chunks=P.chunks("{tag}"),
        questions=P.questions,
    output:
        gold=P.gold("{tag}"),
    log:
        P.log("qcheck{tag}"),
    conda:
        "../envs/data.yaml"
    params:
        gap_sets=P.setting("questions.gap_sets"),
        strict=strict_check,
    script:
        "../scripts/ctxret/stages/qcheck.py"


# A generated question set (questions.sets.<name>.generate), by `make generate-questions` only:
# a run scores the set as written and stops, before anything is paid, when it is not written yet.
# Near-duplicates are found by the first model slot's vectors: an embedding job's threads, and its
# env (the LLM clients too), with or without a slot, so one env holds all the stage may import.
DUPLICATE_SLOT = next(iter(P.models), None)

if GENERATING:

    rule questions_generate:
        input:
            unpack(generation_pilot),
            chunks=P.chunks(),
            prompts=generation_prompts,
            precision=ancient(P.precision_file) if DUPLICATE_SLOT else [],
        output:
            set=P.generated_set("{gset}"),
            record=P.generated_record("{gset}"),
        log:
            P.log("questions_generate", "{gset}"),
        conda:
            "../envs/embed.yaml"
        threads: P.models[DUPLICATE_SLOT]["threads"] if DUPLICATE_SLOT else 1
        params:
            set_name="{gset}",
            spec=generation_spec,
            llm=P.setting("contexts.llm"),
            prices=generation_prices(),
            language=P.setting("corpus.language"),
            attempts=P.setting("contexts.attempts"),
            backoff_s=P.setting("contexts.backoff_s"),
            batch=P.setting("contexts.batch"),
            dense_slot=DUPLICATE_SLOT or "",
            dense_settings=P.model_settings(DUPLICATE_SLOT) if DUPLICATE_SLOT else {},
            flush_every=P.models[DUPLICATE_SLOT]["flush_every"] if DUPLICATE_SLOT else 0,
            offline=P.setting("offline"),
        script:
            "../scripts/ctxret/stages/questions_generate.py"


rule generate_questions:
    input:
        [P.generated_set(name) for name in P.generated_sets],


# `make review-questions`: each generated set's review marks (kept as a person set them) and page
rule questions_review:
    input:
        set=ancient(P.generated_set("{gset}")),
        chunks=ancient(P.chunks()),
    output:
        page=P.review_page("{gset}"),
    log:
        P.log("questions_review", "{gset}"),
    conda:
        "../envs/data.yaml"
    params:
        set_name="{gset}",
        review_file=review_file,
    script:
        "../scripts/ctxret/stages/questions_review.py"


rule review_questions:
    input:
        [P.review_page(name) for name in P.generated_sets],
