# Reruns when the questions' content changes (params.content, hashed when the workflow is
# parsed), not when a file is only touched or reformatted (ancient: its mtime is ignored).
rule questions:
    input:
        [ancient(path) for path in QUESTION_FILES],
    output:
        questions=QUESTIONS,
        sets=f"{R}/question-sets.json",
    log:
        f"{R}/logs/questions.log",
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
        docs=f"{R}/docs.jsonl",
        chunks=f"{R}/chunks{{tag}}.jsonl",
        questions=QUESTIONS,
    output:
        gold=f"{R}/gold{{tag}}.json",
    log:
        f"{R}/logs/qcheck{{tag}}.log",
    conda:
        "../envs/data.yaml"
    params:
        gap_sets=config["questions"]["gap_sets"],
        strict=lambda wc: config["questions"]["strict"] and not wc.tag,
    script:
        "../scripts/stage.py"
