rule search_dense:
    input:
        manifest=f"{R}/index/v_{{variant}}.json",
        qemb=f"{R}/emb/q-{{model}}.npy",
        qmeta=f"{R}/emb/q-{{model}}.json",
    output:
        run=f"{R}/runs/{{model}}-{{variant}}.jsonl",
        trec=f"{R}/runs/{{model}}-{{variant}}.trec",
    log:
        f"{R}/logs/search-{{model}}-{{variant}}.log",
    params:
        name="{model}:{variant}",
        model="{model}",
        k=config["search"]["top_k"],
        qdrant_path=lambda wc: qdrant_params(wc.variant)["qdrant_path"],
        qdrant_url=config["qdrant"]["url"],
        api_key_env=config["qdrant"]["api_key_env"],
    conda:
        "../envs/search.yaml"
    script:
        "../scripts/search_dense.py"


rule search_bm25:
    input:
        manifest=f"{R}/index/v_{{variant}}.json",
        vocab=f"{R}/index/bm25-{{variant}}.json",
        questions=QUESTION_FILES,
    output:
        run=f"{R}/runs/bm25-{{variant}}.jsonl",
        trec=f"{R}/runs/bm25-{{variant}}.trec",
    log:
        f"{R}/logs/search-bm25-{{variant}}.log",
    params:
        name="bm25:{variant}",
        sets=config["questions"]["sets"],
        k=config["search"]["top_k"],
        qdrant_path=lambda wc: qdrant_params(wc.variant)["qdrant_path"],
        qdrant_url=config["qdrant"]["url"],
        api_key_env=config["qdrant"]["api_key_env"],
    conda:
        "../envs/search.yaml"
    script:
        "../scripts/search_bm25.py"


rule fuse:
    input:
        dense=f"{R}/runs/{{model}}-{{variant}}.jsonl",
        bm25=f"{R}/runs/bm25-{{variant}}.jsonl",
    output:
        run=f"{R}/runs/h{{model}}-{{variant}}.jsonl",
        trec=f"{R}/runs/h{{model}}-{{variant}}.trec",
    log:
        f"{R}/logs/fuse-h{{model}}-{{variant}}.log",
    params:
        name="h{model}:{variant}",
        fusion=config["fusion"],
        k=config["search"]["top_k"],
    conda:
        "../envs/search.yaml"
    script:
        "../scripts/search_fuse.py"
