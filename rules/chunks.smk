rule chunks:
    input:
        docs=f"{R}/docs.jsonl",
    output:
        chunks=f"{R}/chunks.jsonl",
    log:
        f"{R}/logs/chunks.log",
    params:
        chunker=CHUNKER,
        max_chars=config["chunking"]["max_chars"],
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/chunks.py"


rule variant:
    input:
        chunks=f"{R}/chunks.jsonl",
        contexts=lambda wc: context_files(wc.variant) if wc.variant in CONTEXT_VARIANTS else [],
    output:
        variant=f"{R}/var-{{variant}}.jsonl",
    log:
        f"{R}/logs/variant-{{variant}}.log",
    params:
        variant="{variant}",
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/variants.py"
