rule index:
    input:
        variant=f"{R}/var-{{variant}}.jsonl",
        emb=lambda wc: [f"{R}/emb/{wc.variant}-{m}.npy" for m in P.models_for(wc.variant)],
    output:
        manifest=f"{R}/index/v_{{variant}}.json",
        vocab=f"{R}/index/bm25-{{variant}}.json",
        matrix=f"{R}/index/bm25-{{variant}}.npz",
    log:
        f"{R}/logs/index-{{variant}}.log",
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
