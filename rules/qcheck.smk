# Reruns when the questions' content changes (params.content, hashed when the workflow is
# parsed), not when a file is only touched or reformatted (ancient: its mtime is ignored).
rule questions:
    input:
        [ancient(path) for path in QUESTION_FILES],
    output:
        questions=P.questions,
        sets=P.question_sets,
    log:
        P.log("questions"),
    conda:
        "../envs/data.yaml"
    params:
        sets=QUESTION_SETS,
        corpus=CORPUS,
        content=QUESTIONS_CONTENT,
    script:
        "../scripts/stage.py"


# gold.json for the experiment's chunks; gold-<chunker>.json for a compared strategy's, never
# strict there (the comparison lists the passages a strategy splits).
rule qcheck:
    input:
        docs=P.docs,
        chunks=P.chunks("{tag}"),
        questions=P.questions,
    output:
        gold=P.gold("{tag}"),
    log:
        P.log("qcheck{tag}"),
    conda:
        "../envs/data.yaml"
    params:
        gap_sets=config["questions"]["gap_sets"],
        strict=lambda wc: config["questions"]["strict"] and not wc.tag,
    script:
        "../scripts/stage.py"
