rule search_dense:
    input:
        manifest=f"{R}/index/v_{{variant}}.json",
        emb=f"{R}/emb/{{variant}}-{{model}}.npy",
        emb_meta=f"{R}/emb/{{variant}}-{{model}}.json",
        qemb=f"{R}/emb/q-{{model}}.npy",
        qmeta=f"{R}/emb/q-{{model}}.json",
    output:
        run=P.deep_run("{model}", "{variant}"),
        trec=f"{R}/runs/deep/{{model}}-{{variant}}.trec",
    log:
        f"{R}/logs/search-{{model}}-{{variant}}.log",
    conda:
        "../envs/search.yaml"
    params:
        name="{model}:{variant}",
        model="{model}",
        depth=P.search_depth,
        recall_sample=config["search"]["recall_sample"],
        qdrant_path=lambda wc: P.qdrant_path(wc.variant),
        qdrant_url=config["qdrant"]["url"],
        api_key_env=config["qdrant"]["api_key_env"],
    script:
        "../scripts/stage.py"


rule search_bm25:
    input:
        manifest=f"{R}/index/v_{{variant}}.json",
        vocab=f"{R}/index/bm25-{{variant}}.json",
        matrix=f"{R}/index/bm25-{{variant}}.npz",
        questions=QUESTIONS,
    output:
        run=P.deep_run("bm25", "{variant}"),
        trec=f"{R}/runs/deep/bm25-{{variant}}.trec",
    log:
        f"{R}/logs/search-bm25-{{variant}}.log",
    conda:
        "../envs/search.yaml"
    params:
        name="bm25:{variant}",
        depth=P.search_depth,
        qdrant_path=lambda wc: P.qdrant_path(wc.variant),
        qdrant_url=config["qdrant"]["url"],
        api_key_env=config["qdrant"]["api_key_env"],
    script:
        "../scripts/stage.py"


rule fuse:
    input:
        dense=lambda wc: P.deep_run(P.hybrids[wc.hybrid].model, wc.variant),
        bm25=P.deep_run("bm25", "{variant}"),
    output:
        run=P.deep_run("{hybrid}", "{variant}"),
        trec=f"{R}/runs/deep/{{hybrid}}-{{variant}}.trec",
    log:
        f"{R}/logs/fuse-{{hybrid}}-{{variant}}.log",
    conda:
        "../envs/search.yaml"
    params:
        name="{hybrid}:{variant}",
        fusion=lambda wc: P.fusion(wc.hybrid),  # a FusionPreset record
        depth=P.search_depth,
    script:
        "../scripts/stage.py"


CUT = names_of(
    c for c in [*P.conditions, *P.compared_conditions] if c.retriever.kind != "reranked"
)  # rerank cuts its own


rule cut_runs:
    """The scored runs: the first `search.top_k` of each deep run (scores and order kept). One job
    for all: each is a few milliseconds, a job's start-up is seconds."""
    input:
        deep=[P.deep_run(r, v) for r, v in CUT],
        chunks=[P.chunks_file(P.variant(v).chunker) for r, v in CUT],
    output:
        runs=[P.run_file(r, v) for r, v in CUT],
        trecs=[P.run_file(r, v).removesuffix(".jsonl") + ".trec" for r, v in CUT],
    log:
        f"{R}/logs/cut-runs.log",
    localrule: True
    conda:
        "../envs/search.yaml"
    params:
        names=[f"{r}:{v}" for r, v in CUT],
        top_k=P.top_k,
    script:
        "../scripts/stage.py"


rule rerank:
    input:
        run=P.deep_run("{base}", "{variant}"),
        variant=f"{R}/var-{{variant}}.jsonl",
        chunks=lambda wc: P.chunks_file(P.variant(wc.variant).chunker),
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
        top_k=P.top_k,
        offline=config["offline"],
    script:
        "../scripts/stage.py"
