rule qcheck:
    input:
        docs=f"{R}/docs.jsonl",
        chunks=f"{R}/chunks.jsonl",
        questions=QUESTION_FILES,
    output:
        gold=f"{R}/gold.json",
    log:
        f"{R}/logs/qcheck.log",
    params:
        sets=config["questions"]["sets"],
        gap_sets=config["questions"]["gap_sets"],
        strict=config["questions"]["strict"],
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/qcheck.py"
