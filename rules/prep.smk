rule prep:
    input:
        corpus_files(CORPUS),
    output:
        docs_all=f"{R}/docs-all.jsonl",
        docs=f"{R}/docs.jsonl",
    log:
        f"{R}/logs/prep.log",
    conda:
        "../envs/data.yaml"
    params:
        corpus=CORPUS,
    script:
        "../scripts/stage.py"
