rule score:
    input:
        gold=f"{R}/gold.json",
        chunks=f"{R}/chunks.jsonl",
        runs=[P.run_file(r, v) for r, v in names_of(P.conditions)],
    output:
        md=f"{R}/score.md",
        json=f"{R}/score.json",
        parquet=f"{R}/score.parquet",
        qrels=f"{R}/runs/qrels.txt",
        doc_runs=[f"{R}/runs/doc/{r}-{v}.trec" for r, v in names_of(P.conditions)],
        doc_qrels=f"{R}/runs/doc/qrels.txt",
    log:
        f"{R}/logs/score.log",
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
