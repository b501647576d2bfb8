# A judged set's relevance (questions.sets.<name>.judge): the pooled runs of every condition graded
# by contexts.llm, each (query, chunk) paid once ever (the store), priced before the first call.
rule judge:
    input:
        gold=P.gold(),
        chunks=P.chunks(),
        runs=[P.run_file(r, v) for r, v in names_of(P.conditions)],
        prompt=judge_prompt,
        prices=PRICES,
    output:
        judgments=P.judgments("{jset}"),
    log:
        P.log("judge", "{jset}"),
    conda:
        "../envs/contexts.yaml"
    params:
        set_name="{jset}",
        judge=judge_spec,
        conditions=names_of(P.conditions),
        llm=P.setting("contexts.llm"),
        language=P.setting("corpus.language"),
        attempts=P.setting("contexts.attempts"),
        backoff_s=P.setting("contexts.backoff_s"),
        batch=P.setting("contexts.batch"),
    script:
        "../scripts/ctxret/stages/judge.py"


rule score:
    input:
        gold=P.gold(),
        chunks=P.chunks(),
        runs=[P.run_file(r, v) for r, v in names_of(P.conditions)],
        judgments=[P.judgments(name) for name in P.judged_sets],
    output:
        md=P.score_md,
        json=P.score_json,
        parquet=P.score_table,
        qrels=P.qrels,
        doc_runs=[P.doc_run(r, v) for r, v in names_of(P.conditions)],
        doc_qrels=P.doc_qrels,
        ids=P.run_ids,
    log:
        P.log("score"),
    conda:
        "../envs/report.yaml"
    params:
        conditions=names_of(P.conditions),
        groups=P.setting("questions.groups"),
        cutoffs=P.measures,
        main_group=P.setting("score.main_group"),
        per_set=P.setting("score.per_set"),
        language=P.setting("report.language"),
        title=TITLE,
    script:
        "../scripts/ctxret/stages/score.py"
