rule search_dense:
    input:
        manifest=f"{R}/index/v_{{variant}}.json",
        emb=f"{R}/emb/{{variant}}-{{model}}.npy",
        emb_meta=f"{R}/emb/{{variant}}-{{model}}.json",
        qemb=f"{R}/emb/q-{{model}}.npy",
        qmeta=f"{R}/emb/q-{{model}}.json",
    output:
        run=deep_run("{model}", "{variant}"),
        trec=f"{R}/runs/deep/{{model}}-{{variant}}.trec",
    log:
        f"{R}/logs/search-{{model}}-{{variant}}.log",
    conda:
        "../envs/search.yaml"
    params:
        name="{model}:{variant}",
        model="{model}",
        k=SEARCH_DEPTH,
        recall_sample=config["search"]["recall_sample"],
        qdrant_path=lambda wc: qdrant_path(wc.variant),
        qdrant_url=config["qdrant"]["url"],
        api_key_env=config["qdrant"]["api_key_env"],
    script:
        "../scripts/search_dense.py"


rule search_bm25:
    input:
        manifest=f"{R}/index/v_{{variant}}.json",
        vocab=f"{R}/index/bm25-{{variant}}.json",
        matrix=f"{R}/index/bm25-{{variant}}.npz",
        questions=QUESTIONS,
    output:
        run=deep_run("bm25", "{variant}"),
        trec=f"{R}/runs/deep/bm25-{{variant}}.trec",
    log:
        f"{R}/logs/search-bm25-{{variant}}.log",
    conda:
        "../envs/search.yaml"
    params:
        name="bm25:{variant}",
        k=SEARCH_DEPTH,
        qdrant_path=lambda wc: qdrant_path(wc.variant),
        qdrant_url=config["qdrant"]["url"],
        api_key_env=config["qdrant"]["api_key_env"],
    script:
        "../scripts/search_bm25.py"


rule fuse:
    input:
        dense=lambda wc: deep_run(HYBRIDS[wc.hybrid][0], wc.variant),
        bm25=deep_run("bm25", "{variant}"),
    output:
        run=deep_run("{hybrid}", "{variant}"),
        trec=f"{R}/runs/deep/{{hybrid}}-{{variant}}.trec",
    log:
        f"{R}/logs/fuse-{{hybrid}}-{{variant}}.log",
    conda:
        "../envs/search.yaml"
    params:
        name="{hybrid}:{variant}",
        preset=lambda wc: HYBRIDS[wc.hybrid][1],
        fusion=lambda wc: config["fusion"]["presets"][HYBRIDS[wc.hybrid][1]],
        k=SEARCH_DEPTH,
        depth=lambda wc: fusion_depth(HYBRIDS[wc.hybrid][1]),
    script:
        "../scripts/fuse.py"


CUT = [(r, v) for r, v in [*CONDITIONS, *COMPARED_CONDITIONS] if not r.startswith("r-")]  # rerank cuts its own


rule cut_runs:
    """The scored runs: the first `search.top_k` of each deep run (scores and order kept). One job
    for all: each is a few milliseconds, a job's start-up is seconds."""
    input:
        deep=[deep_run(r, v) for r, v in CUT],
        chunks=[f"{R}/chunks{chunk_tag(variant_chunker(v))}.jsonl" for r, v in CUT],
    output:
        runs=[run_file(r, v) for r, v in CUT],
        trecs=[run_file(r, v).removesuffix(".jsonl") + ".trec" for r, v in CUT],
    log:
        f"{R}/logs/cut-runs.log",
    localrule: True
    conda:
        "../envs/search.yaml"
    params:
        names=[f"{r}:{v}" for r, v in CUT],
        k=TOP_K,
    script:
        "../scripts/cut_runs.py"


rule rerank:
    input:
        run=deep_run("{base}", "{variant}"),
        variant=f"{R}/var-{{variant}}.jsonl",
        chunks=lambda wc: f"{R}/chunks{chunk_tag(variant_chunker(wc.variant))}.jsonl",
        questions=QUESTIONS,
    output:
        run=f"{R}/runs/r-{{base}}-{{variant}}.jsonl",
        trec=f"{R}/runs/r-{{base}}-{{variant}}.trec",
    log:
        f"{R}/logs/rerank-{{base}}-{{variant}}.log",
    conda:
        "../envs/embed.yaml"
    threads: config["rerank"]["threads"]
    params:
        name="r-{base}:{variant}",
        rerank=config["rerank"],
        k=TOP_K,
        store=STORE,
        offline=config["offline"],
    script:
        "../scripts/rerank.py"
