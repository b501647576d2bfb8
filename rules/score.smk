from ctxret import metrics  # noqa: E402 (the package is on sys.path from rules/common.smk)


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
        doc_runs=[f"{R}/runs/doc/{r}-{v}.trec" for r, v in CONDITIONS],
        doc_qrels=f"{R}/runs/doc/qrels.txt",
    log:
        f"{R}/logs/score.log",
    conda:
        "../envs/report.yaml"
    params:
        conditions=CONDITIONS,
        groups=GROUPS,
        cutoffs=metrics.configured(config["score"], TOP_K),
        main_group=MAIN_GROUP,
        per_set=config["score"]["per_set"],
        language=config["report"]["language"],
    script:
        "../scripts/score.py"
