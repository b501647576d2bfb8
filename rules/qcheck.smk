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
    params:
        sets=QUESTION_SETS,
        corpus=CORPUS,
        content=QUESTIONS_CONTENT,
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/questions.py"


rule qcheck:
    input:
        docs=f"{R}/docs.jsonl",
        chunks=f"{R}/chunks.jsonl",
        questions=QUESTIONS,
    output:
        gold=f"{R}/gold.json",
    log:
        f"{R}/logs/qcheck.log",
    params:
        gap_sets=config["questions"]["gap_sets"],
        strict=config["questions"]["strict"],
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/qcheck.py"
