# The experiment's chunker writes chunks.jsonl; each compared one chunks-<chunker>.jsonl.
rule chunks:
    input:
        docs=P.docs,
        # the precision its model slot embeds at (a chunker that reads a model)
        precision=lambda wc: [ancient(P.precision_file)] if P.chunker_tagged(wc.tag).model else [],
    output:
        chunks=P.chunks("{tag}"),
    log:
        P.log("chunks{tag}"),
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
        chunks=lambda wc: P.variant_chunks(wc.variant),
        contexts=lambda wc: P.context_files(wc.variant, KEPT_SLUGS) if wc.variant in P.context_variants else [],
    output:
        variant=P.variant_file("{variant}"),
    log:
        P.log("variant", "{variant}"),
    conda:
        "../envs/data.yaml"
    params:
        variant="{variant}",
        base=lambda wc: P.variant(wc.variant).base,
        t1_template=lambda wc: config["chunking"]["t1_template"],  # braces: a function, or Snakemake reads them as wildcards
    script:
        "../scripts/stage.py"
