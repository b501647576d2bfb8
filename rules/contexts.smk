# Each document with its chunks, one file per document: an A1 job reads its own shard only.
rule ctx_shards:
    input:
        docs=P.docs,
        chunks=P.chunks(),
    output:
        [P.context_shard(slug) for slug in KEPT_SLUGS],
    log:
        P.context_log("shards"),
    priority: 10
    conda:
        "../envs/contexts.yaml"
    script:
        "../scripts/stage.py"


# A1 by a batch API (contexts.llm.backend anthropic-batch, openai-batch): one job for every
# document. A batch is priced and processed as a whole, a document's requests travel together,
# and one process polls, collects and resumes the open batches (ctxret.batchctx); a job per
# document would submit 88 batches and hold 88 pollers. It holds no core while it waits (threads 0).
A1_BY_BATCH = "A1" in P.context_variants and backend_spec(P.context_variants["A1"]["backend"]).batch

if A1_BY_BATCH:

    rule contexts_batch:
        input:
            docs=P.docs,
            chunks=P.chunks(),
            template=PROMPT,
            checked=ancient(P.gold()),  # as rule contexts: nothing paid before these
            estimated=ancient(P.context_estimate("A1")),
            preregistered=ancient(P.preregistration),
        output:
            P.context_files("A1", KEPT_SLUGS),
        log:
            P.context_log("A1", "batch"),
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
            reply=config["contexts"]["reply"],
        script:
            "../scripts/stage.py"

else:

    # An LLM variant (A1): one job per document, its chunks one call after another (prompt cache).
    # A job waits on the network, not the CPU, so it holds no core (threads 0): `llm_workers`
    # alone caps the documents in flight, whatever --cores is. Priority: a free slot goes to the
    # next document before any other job.
    rule contexts:
        input:
            shard=P.context_shard("{slug}"),
            template=PROMPT,
            checked=ancient(P.gold()),  # no paid call before qcheck, the estimate and the
            estimated=ancient(P.context_estimate("{cvar}")),  # preregistration (ancient: none of
            preregistered=ancient(P.preregistration),  # them reruns a context)
        output:
            P.context_file("{cvar}", "{slug}"),
        log:
            P.context_log("{cvar}", "{slug}"),
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
            reply=config["contexts"]["reply"],
        script:
            "../scripts/stage.py"


# The free variant (X1): every document in one job. It costs milliseconds a document, and
# per-document jobs would each start Python. Never stored: recomputed, the same every time.
# It counts tokens with the tokenizers of the models that embed X1 (so the embed env).
rule contexts_free:
    input:
        docs=P.docs,
        chunks=P.chunks(),
        template=PROMPT,
    output:
        P.context_files("X1", KEPT_SLUGS),
    log:
        P.context_log("X1"),
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
        chunks=P.chunks(),
        prices=PRICES,
        estimate=lambda wc: [P.context_estimate(wc.cvar)] if wc.cvar == "A1" else [],
    output:
        json=P.context_stats("{cvar}"),
    log:
        P.log("ctx-stats", "{cvar}"),
    conda:
        "../envs/contexts.yaml"
    params:
        variant="{cvar}",
    script:
        "../scripts/stage.py"


rule ctx_estimate:
    input:
        docs=P.docs,
        chunks=P.chunks(),
        template=PROMPT,
        prices=PRICES,
    output:
        json=P.context_estimate("{cvar}"),
    log:
        P.log("ctx-estimate", "{cvar}"),
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
        questions=P.questions,
    output:
        json=P.context_lengths("{cvar}"),
    log:
        P.log("ctx-ctxlen", "{cvar}"),
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
        [P.context_estimate(v) for v in P.context_variants if v == "A1"],
