# The experiment's chunker writes chunks.jsonl; each compared one chunks-<chunker>.jsonl.
rule chunks:
    input:
        docs=f"{R}/docs.jsonl",
        # the precision its model slot embeds at (a chunker that reads a model)
        precision=lambda wc: [ancient(f"{R}/precision.json")] if P.chunker_tagged(wc.tag).model else [],
    output:
        chunks=f"{R}/chunks{{tag}}.jsonl",
    log:
        f"{R}/logs/chunks{{tag}}.log",
    conda:
        "../envs/embed.yaml"
    threads: lambda wc: P.models[P.chunker_tagged(wc.tag).model]["threads"] if P.chunker_tagged(wc.tag).model else 1
    params:
        chunker=lambda wc: P.chunker_tagged(wc.tag).name,
        format=config["corpus"]["format"],
        settings=lambda wc: P.chunker_tagged(wc.tag).settings,
        slot=lambda wc: P.chunker_tagged(wc.tag).model or "",
        t1_template=lambda wc: config["chunking"]["t1_template"],  # braces: a function, or Snakemake reads them as wildcards
        offline=config["offline"],
    script:
        "../scripts/stage.py"


rule variant:
    input:
        chunks=lambda wc: P.chunks_file(P.variant(wc.variant).chunker),
        contexts=lambda wc: P.context_files(wc.variant, KEPT_SLUGS) if wc.variant in P.context_variants else [],
    output:
        variant=f"{R}/var-{{variant}}.jsonl",
    log:
        f"{R}/logs/variant-{{variant}}.log",
    conda:
        "../envs/data.yaml"
    params:
        variant="{variant}",
        base=lambda wc: P.variant(wc.variant).base,
        t1_template=lambda wc: config["chunking"]["t1_template"],  # braces: a function, or Snakemake reads them as wildcards
    script:
        "../scripts/stage.py"
