rule prep:
    input:
        corpus_files(CORPUS),
    output:
        docs_all=P.docs_all,
        docs=P.docs,
    log:
        P.log("prep"),
    conda:
        "../envs/data.yaml"
    params:
        corpus=CORPUS,
    script:
        "../scripts/ctxret/stages/prep.py"
