rule score:
    input:
        gold=f"{R}/gold.json",
        chunks=f"{R}/chunks.jsonl",
        runs=[run_file(r, v) for r, v in CONDITIONS],
    output:
        md=f"{R}/score.md",
        json=f"{R}/score.json",
    log:
        f"{R}/logs/score.log",
    params:
        conditions=CONDITIONS,
        groups=config["questions"]["groups"],
        ks=config["score"]["ks"],
        mrr_k=config["score"]["mrr_k"],
        doc_k=config["score"]["doc_k"],
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/score.py"


rule pairs:
    input:
        gold=f"{R}/gold.json",
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
        groups=config["questions"]["groups"],
        ks=config["score"]["ks"],
        cluster_key=config["questions"]["cluster_key"],
        seed=config["pairs"]["seed"],
        resamples=config["pairs"]["resamples"],
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
