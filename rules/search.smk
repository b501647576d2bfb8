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
        k=SEARCH_DEPTH,
        qdrant_path=lambda wc: qdrant_params(wc.variant)["qdrant_path"],
        qdrant_url=config["qdrant"]["url"],
        api_key_env=config["qdrant"]["api_key_env"],
    conda:
        "../envs/search.yaml"
    script:
        "../scripts/search_dense.py"


rule search_bm25:
    input:
        vocab=f"{R}/index/bm25-{{variant}}.json",
        matrix=f"{R}/index/bm25-{{variant}}.npz",
        questions=QUESTIONS,
    output:
        run=f"{R}/runs/bm25-{{variant}}.jsonl",
        trec=f"{R}/runs/bm25-{{variant}}.trec",
    log:
        f"{R}/logs/search-bm25-{{variant}}.log",
    params:
        name="bm25:{variant}",
        k=SEARCH_DEPTH,
    conda:
        "../envs/search.yaml"
    script:
        "../scripts/search_bm25.py"


rule fuse:
    input:
        dense=lambda wc: run_file(HYBRIDS[wc.hybrid][0], wc.variant),
        bm25=f"{R}/runs/bm25-{{variant}}.jsonl",
    output:
        run=f"{R}/runs/{{hybrid}}-{{variant}}.jsonl",
        trec=f"{R}/runs/{{hybrid}}-{{variant}}.trec",
    log:
        f"{R}/logs/fuse-{{hybrid}}-{{variant}}.log",
    params:
        name="{hybrid}:{variant}",
        preset=lambda wc: HYBRIDS[wc.hybrid][1],
        fusion=lambda wc: config["fusion"]["presets"][HYBRIDS[wc.hybrid][1]],
        k=SEARCH_DEPTH,
    conda:
        "../envs/search.yaml"
    script:
        "../scripts/search_fuse.py"


rule rerank:
    input:
        run=f"{R}/runs/{{base}}-{{variant}}.jsonl",
        variant=f"{R}/var-{{variant}}.jsonl",
        questions=QUESTIONS,
    output:
        run=f"{R}/runs/r-{{base}}-{{variant}}.jsonl",
        trec=f"{R}/runs/r-{{base}}-{{variant}}.trec",
    log:
        f"{R}/logs/rerank-{{base}}-{{variant}}.log",
    params:
        name="r-{base}:{variant}",
        rerank=config["rerank"],
        k=config["search"]["top_k"],
        store=STORE,
        offline=config["offline"],
    threads: config["rerank"]["threads"]
    conda:
        "../envs/embed.yaml"
    script:
        "../scripts/rerank.py"
