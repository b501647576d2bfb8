rule index:
    input:
        variant=P.variant_file("{variant}"),
        emb=lambda wc: [P.vectors(wc.variant, m) for m in P.models_for(wc.variant)],
    output:
        manifest=P.index_manifest("{variant}"),
        vocab=P.bm25_index("{variant}", ".json"),
        matrix=P.bm25_index("{variant}", ".npz"),
    log:
        P.log("index", "{variant}"),
    conda:
        "../envs/search.yaml"
    threads: config["bm25"]["threads"]
    params:
        variant="{variant}",
        models=lambda wc: P.models_for(wc.variant),
        bm25=config["bm25"],
        analysis=BM25_RULE,  # a new analysis rule rebuilds the index
        search={k: config["search"][k] for k in ("exact", "hnsw")},  # not top_k: a cut reruns no index
        qdrant_path=lambda wc: P.qdrant_path(wc.variant),
        qdrant_url=config["qdrant"]["url"],
        api_key_env=config["qdrant"]["api_key_env"],
    script:
        "../scripts/stage.py"
