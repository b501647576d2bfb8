# The experiment's chunker writes chunks.jsonl; each compared one chunks-<chunker>.jsonl.
rule chunks:
    input:
        docs=P.docs,
        # the precision its model slot embeds at (a chunker that reads a model)
        precision=chunker_precision,
    output:
        chunks=P.chunks("{tag}"),
    log:
        P.log("chunks{tag}"),
    conda:
        "../envs/embed.yaml"
    threads: chunker_threads
    params:
        chunker=chunker_name,
        format=P.setting("corpus.format"),
        settings=chunker_settings,
        slot=chunker_slot,
        t1_template=verbatim("chunking.t1_template"),
        offline=P.setting("offline"),
    script:
        "../scripts/ctxret/stages/chunks.py"


rule variant:
    input:
        chunks=variant_chunks,
        contexts=variant_contexts,
    output:
        variant=P.variant_file("{variant}"),
    log:
        P.log("variant", "{variant}"),
    conda:
        "../envs/data.yaml"
    params:
        variant="{variant}",
        base=variant_base,
        t1_template=verbatim("chunking.t1_template"),
    script:
        "../scripts/ctxret/stages/variant.py"
