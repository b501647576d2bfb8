rule score:
    input:
        gold=P.gold(),
        chunks=P.chunks(),
        runs=[P.run_file(r, v) for r, v in names_of(P.conditions)],
    output:
        md=P.score_md,
        json=P.score_json,
        parquet=P.score_table,
        qrels=P.qrels,
        doc_runs=[P.doc_run(r, v) for r, v in names_of(P.conditions)],
        doc_qrels=P.doc_qrels,
    log:
        P.log("score"),
    conda:
        "../envs/report.yaml"
    params:
        conditions=names_of(P.conditions),
        groups=config["questions"]["groups"],
        cutoffs=P.measures,
        main_group=config["score"]["main_group"],
        per_set=config["score"]["per_set"],
        language=config["report"]["language"],
        title=TITLE,
    script:
        "../scripts/stage.py"
