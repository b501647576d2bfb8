# The experiment's chunker writes chunks.jsonl; each compared one chunks-<chunker>.jsonl.
rule chunks:
    input:
        docs=f"{R}/docs.jsonl",
    output:
        chunks=f"{R}/chunks{{tag}}.jsonl",
    log:
        f"{R}/logs/chunks{{tag}}.log",
    conda:
        "../envs/embed.yaml"
    threads: lambda wc: MODELS[chunker_model(chunker_of(wc.tag))]["threads"] if chunker_model(chunker_of(wc.tag)) else 1
    params:
        chunker=lambda wc: chunker_of(wc.tag),
        format=CORPUS["format"],
        settings=lambda wc: chunker_settings(chunker_of(wc.tag)),
        t1_template=lambda wc: T1_TEMPLATE,  # braces: a function, or Snakemake reads them as wildcards
        store=STORE,
        offline=config["offline"],
    script:
        "../scripts/chunks.py"


rule variant:
    input:
        chunks=lambda wc: f"{R}/chunks{chunk_tag(variant_chunker(wc.variant))}.jsonl",
        contexts=lambda wc: context_files(wc.variant) if wc.variant in CONTEXT_VARIANTS else [],
    output:
        variant=f"{R}/var-{{variant}}.jsonl",
    log:
        f"{R}/logs/variant-{{variant}}.log",
    conda:
        "../envs/data.yaml"
    params:
        variant="{variant}",
        t1_template=lambda wc: T1_TEMPLATE,  # braces: a function, or Snakemake reads them as wildcards
    script:
        "../scripts/variants.py"
