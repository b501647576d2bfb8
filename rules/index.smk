rule index:
    input:
        variant=P.variant_file("{variant}"),
        emb=variant_vectors,
    output:
        manifest=P.index_manifest("{variant}"),
        vocab=P.bm25_index("{variant}", ".json"),
        matrix=P.bm25_index("{variant}", ".npz"),
    log:
        P.log("index", "{variant}"),
    conda:
        "../envs/search.yaml"
    threads: P.setting("bm25.threads")
    params:
        variant="{variant}",
        models=variant_models,
        bm25=P.setting("bm25"),
        analysis=BM25_RULE,  # a new analysis rule rebuilds the index
        search={k: P.setting("search")[k] for k in ("exact", "hnsw")},  # not top_k: a cut reruns no index
        qdrant_path=qdrant_path,
        qdrant_url=P.setting("qdrant.url"),
        api_key_env=P.setting("qdrant.api_key_env"),
    script:
        "../scripts/ctxret/stages/index.py"
