# Each document with its chunks, one file per document: an A1 job reads its own shard only.
rule ctx_shards:
    input:
        docs=f"{R}/docs.jsonl",
        chunks=f"{R}/chunks.jsonl",
    output:
        [f"{R}/ctx/shards/{slug}.json" for slug in KEPT_SLUGS],
    log:
        f"{R}/logs/ctx/shards.log",
    priority: 10
    conda:
        "../envs/contexts.yaml"
    script:
        "../scripts/stage.py"


# A1 by a batch API (contexts.llm.backend anthropic-batch): one job for every document. A batch
# is priced and processed as a whole, a document's requests travel together, and one process
# polls, collects and resumes the open batches (ctxret.batchctx); a job per document would submit
# 88 batches and hold 88 pollers. It holds no core while it waits (threads 0).
A1_BY_BATCH = "A1" in P.context_variants and backend_spec(P.context_variants["A1"]["backend"]).batch

if A1_BY_BATCH:

    rule contexts_batch:
        input:
            docs=f"{R}/docs.jsonl",
            chunks=f"{R}/chunks.jsonl",
            template=PROMPT,
            checked=ancient(f"{R}/gold.json"),  # as rule contexts: nothing paid before these
            estimated=ancient(f"{R}/ctx/A1/estimate.json"),
            preregistered=ancient(f"{R}/preregistration.json"),
        output:
            P.context_files("A1", KEPT_SLUGS),
        log:
            f"{R}/logs/ctx/A1-batch.log",
        priority: 10
        conda:
            "../envs/contexts.yaml"
        threads: 0
        params:
            **context_params(
                "A1",
                P.context_variants.get("A1"),
                config["contexts"]["attempts"],
                config["contexts"]["backoff_s"],
            ),
            batch=config["contexts"]["batch"],
        script:
            "../scripts/stage.py"

else:

    # An LLM variant (A1): one job per document, its chunks one call after another (prompt cache).
    # A job waits on the network, not the CPU, so it holds no core (threads 0): `llm_workers`
    # alone caps the documents in flight, whatever --cores is. Priority: a free slot goes to the
    # next document before any other job.
    rule contexts:
        input:
            shard=f"{R}/ctx/shards/{{slug}}.json",
            template=PROMPT,
            checked=ancient(f"{R}/gold.json"),  # no paid call before qcheck, the estimate and the
            estimated=ancient(f"{R}/ctx/{{cvar}}/estimate.json"),  # preregistration (ancient: none of
            preregistered=ancient(f"{R}/preregistration.json"),  # them reruns a context)
        output:
            f"{R}/ctx/{{cvar}}/docs/{{slug}}.jsonl",
        log:
            f"{R}/logs/ctx/{{cvar}}-{{slug}}.log",
        wildcard_constraints:
            cvar="A1",
        priority: 10
        conda:
            "../envs/contexts.yaml"
        threads: 0
        resources:
            llm_workers=1,
        params:
            **context_params(
                "{cvar}",
                lambda wc: P.context_variants[wc.cvar],
                config["contexts"]["attempts"],
                config["contexts"]["backoff_s"],
            ),
        script:
            "../scripts/stage.py"


# The free variant (X1): every document in one job. It costs milliseconds a document, and
# per-document jobs would each start Python. Never stored: recomputed, the same every time.
# It counts tokens with the tokenizers of the models that embed X1 (so the embed env).
rule contexts_free:
    input:
        docs=f"{R}/docs.jsonl",
        chunks=f"{R}/chunks.jsonl",
        template=PROMPT,
    output:
        P.context_files("X1", KEPT_SLUGS),
    log:
        f"{R}/logs/ctx/X1.log",
    conda:
        "../envs/embed.yaml"
    params:
        **context_params("X1", P.context_variants.get("X1"), attempts=1, backoff_s=0),
        models={m: P.model_settings(m) for m in P.models_for("X1")} if "X1" in P.context_variants else {},
        t1_template=lambda wc: config["chunking"]["t1_template"],  # braces: a function, or Snakemake reads them as wildcards
        offline=config["offline"],
    script:
        "../scripts/stage.py"


# The ledger; for A1 beside the estimate made before the run.
rule ctx_stats:
    input:
        contexts=lambda wc: P.context_files(wc.cvar, KEPT_SLUGS),
        chunks=f"{R}/chunks.jsonl",
        prices=PRICES,
        estimate=lambda wc: [f"{R}/ctx/{wc.cvar}/estimate.json"] if wc.cvar == "A1" else [],
    output:
        json=f"{R}/ctx/{{cvar}}/stats.json",
    log:
        f"{R}/logs/ctx-stats-{{cvar}}.log",
    conda:
        "../envs/contexts.yaml"
    params:
        variant="{cvar}",
    script:
        "../scripts/stage.py"


rule ctx_estimate:
    input:
        docs=f"{R}/docs.jsonl",
        chunks=f"{R}/chunks.jsonl",
        template=PROMPT,
        prices=PRICES,
    output:
        json=f"{R}/ctx/{{cvar}}/estimate.json",
    log:
        f"{R}/logs/ctx-estimate-{{cvar}}.log",
    conda:
        "../envs/contexts.yaml"
    params:
        llm=lambda wc: P.context_variants[wc.cvar],
        extra_sentence=config["contexts"]["extra_sentence"],
        output_tokens=config["contexts"]["expected_output_tokens"],
    script:
        "../scripts/stage.py"


rule ctx_ctxlen:
    input:
        contexts=lambda wc: P.context_files(wc.cvar, KEPT_SLUGS),
        questions=QUESTIONS,
    output:
        json=f"{R}/ctx/{{cvar}}/ctxlen.json",
    log:
        f"{R}/logs/ctx-ctxlen-{{cvar}}.log",
    conda:
        "../envs/embed.yaml"
    params:
        variant="{cvar}",
        models={m: P.model_settings(m) for m in P.models},
        offline=config["offline"],
        language=config["corpus"]["language"],
    script:
        "../scripts/stage.py"


rule estimate:
    input:
        [f"{R}/ctx/{v}/estimate.json" for v in P.context_variants if v == "A1"],
