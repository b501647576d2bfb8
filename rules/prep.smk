rule prep:
    input:
        corpus_files(CORPUS),
    output:
        docs_all=f"{R}/docs-all.jsonl",
        docs=f"{R}/docs.jsonl",
    log:
        f"{R}/logs/prep.log",
    params:
        corpus=CORPUS,
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/prep.py"
