rule score:
    input:
        gold=f"{R}/gold.json",
        chunks=f"{R}/chunks.jsonl",
        runs=[run_file(r, v) for r, v in CONDITIONS],
    output:
        md=f"{R}/score.md",
        json=f"{R}/score.json",
        parquet=f"{R}/score.parquet",
        qrels=f"{R}/runs/qrels.txt",
    log:
        f"{R}/logs/score.log",
    conda:
        "../envs/report.yaml"
    params:
        conditions=CONDITIONS,
        groups=GROUPS,
        ks=config["score"]["ks"],
        mrr_k=config["score"]["mrr_k"],
        doc_k=config["score"]["doc_k"],
        main_group=MAIN_GROUP,
        per_set=config["score"]["per_set"],
        language=config["report"]["language"],
    script:
        "../scripts/score.py"
