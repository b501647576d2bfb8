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
    params:
        conditions=CONDITIONS,
        groups=GROUPS,
        ks=config["score"]["ks"],
        mrr_k=config["score"]["mrr_k"],
        doc_k=config["score"]["doc_k"],
        main_group=MAIN_GROUP,
        per_set=config["score"]["per_set"],
        language=config["report"]["language"],
    conda:
        "../envs/report.yaml"
    script:
        "../scripts/score.py"


rule pairs:
    input:
        gold=f"{R}/gold.json",
        sets=f"{R}/question-sets.json",
        chunks=f"{R}/chunks.jsonl",
        runs=[run_file(r, v) for r, v in CONDITIONS],
    output:
        md=f"{R}/pairs.md",
        json=f"{R}/pairs.json",
    log:
        f"{R}/logs/pairs.log",
    params:
        conditions=CONDITIONS,
        comparisons=comparisons(),
        primary=PRIMARY,
        fallback_used=FALLBACK_USED,
        fallback_variant=config["pairs"]["fallback_variant"],
        alpha=config["pairs"]["alpha"],
        power=config["pairs"]["power"],
        groups=GROUPS,
        ks=config["score"]["ks"],
        mrr_k=config["score"]["mrr_k"],
        doc_k=config["score"]["doc_k"],
        cluster_key=config["questions"]["cluster_key"],
        seed=config["pairs"]["seed"],
        resamples=config["pairs"]["resamples"],
        language=config["report"]["language"],
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/pairs.py"


rule manifest:
    input:
        intermediate_outputs(),
        final_outputs(),
    output:
        manifest=f"{R}/manifest.tsv",
    log:
        f"{R}/logs/manifest.log",
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/manifest.py"
