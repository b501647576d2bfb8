rule search_dense:
    input:
        manifest=P.index_manifest("{variant}"),
        emb=P.vectors("{variant}", "{model}"),
        emb_meta=P.vectors("{variant}", "{model}", ".json"),
        qemb=P.question_vectors("{model}"),
        qmeta=P.question_vectors("{model}", ".json"),
    output:
        run=P.deep_run("{model}", "{variant}"),
        trec=P.deep_run("{model}", "{variant}", ".trec"),
    log:
        P.log("search", "{model}", "{variant}"),
    conda:
        "../envs/search.yaml"
    params:
        name=P.condition_name("{model}", "{variant}"),
        model="{model}",
        depth=P.search_depth,
        recall_sample=P.setting("search.recall_sample"),
        qdrant_path=qdrant_path,
        qdrant_url=P.setting("qdrant.url"),
        api_key_env=P.setting("qdrant.api_key_env"),
    script:
        "../scripts/ctxret/stages/search.py"


rule search_bm25:
    input:
        manifest=P.index_manifest("{variant}"),
        vocab=P.bm25_index("{variant}", ".json"),
        matrix=P.bm25_index("{variant}", ".npz"),
        questions=P.questions,
    output:
        run=P.deep_run("bm25", "{variant}"),
        trec=P.deep_run("bm25", "{variant}", ".trec"),
    log:
        P.log("search", "bm25", "{variant}"),
    conda:
        "../envs/search.yaml"
    params:
        name=P.condition_name("bm25", "{variant}"),
        depth=P.search_depth,
        qdrant_path=qdrant_path,
        qdrant_url=P.setting("qdrant.url"),
        api_key_env=P.setting("qdrant.api_key_env"),
    script:
        "../scripts/ctxret/stages/search.py"


rule search_fuse:
    input:
        dense=hybrid_dense_run,
        bm25=P.deep_run("bm25", "{variant}"),
    output:
        run=P.deep_run("{hybrid}", "{variant}"),
        trec=P.deep_run("{hybrid}", "{variant}", ".trec"),
    log:
        P.log("fuse", "{hybrid}", "{variant}"),
    conda:
        "../envs/search.yaml"
    params:
        name=P.condition_name("{hybrid}", "{variant}"),
        fusion=hybrid_fusion,  # a FusionPreset record
        depth=P.search_depth,
    script:
        "../scripts/ctxret/stages/search.py"


CUT = names_of(
    c for c in [*P.conditions, *P.compared_conditions] if c.retriever.kind != "reranked"
)  # rerank cuts its own


rule search_cut:
    """The scored runs: the first `search.top_k` of each deep run (scores and order kept). One job
    for all: each is a few milliseconds, a job's start-up is seconds."""
    input:
        deep=[P.deep_run(r, v) for r, v in CUT],
        chunks=[P.variant_chunks(v) for r, v in CUT],
    output:
        runs=[P.run_file(r, v) for r, v in CUT],
        trecs=[P.run_file(r, v, ".trec") for r, v in CUT],
    log:
        P.log("cut-runs"),
    localrule: True
    conda:
        "../envs/search.yaml"
    params:
        names=[P.condition_name(r, v) for r, v in CUT],
        top_k=P.top_k,
    script:
        "../scripts/ctxret/stages/search.py"


rule rerank:
    input:
        run=P.deep_run("{base}", "{variant}"),
        variant=P.variant_file("{variant}"),
        chunks=variant_chunks,
        questions=P.questions,
    output:
        run=P.run_file(P.reranked_name("{base}"), "{variant}"),
        trec=P.run_file(P.reranked_name("{base}"), "{variant}", ".trec"),
    log:
        P.log("rerank", "{base}", "{variant}"),
    conda:
        "../envs/embed.yaml"
    threads: P.setting("rerank.threads")
    params:
        name=P.condition_name(P.reranked_name("{base}"), "{variant}"),
        rerank=P.setting("rerank"),
        top_k=P.top_k,
        offline=P.setting("offline"),
    script:
        "../scripts/ctxret/stages/rerank.py"
