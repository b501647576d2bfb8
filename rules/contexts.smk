# Each document with its chunks, one file per document: an A1 job reads its own shard only.
rule contexts_shards:
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
        "../scripts/ctxret/stages/contexts.py"


# A paid variant by a batch API (backend anthropic-batch, openai-batch): one job for every
# document. A batch is priced and processed as a whole, a document's requests travel together,
# and one process polls, collects and resumes the open batches (ctxret.contexts.batches); a job per
# document would submit 88 batches and hold 88 pollers. It holds no core while it waits (threads 0).
BY_BATCH = [v for v in P.paid_variants if backend_spec(P.context_variants[v]["backend"]).batch]
ONLINE = [v for v in P.paid_variants if v not in BY_BATCH]

if BY_BATCH:

    rule contexts_batch:
        input:
            docs=P.docs,
            chunks=P.chunks(),
            template=PROMPT,
            checked=ancient(P.gold()),  # as rule contexts: nothing paid before these
            estimated=ancient(P.context_estimate("{cvar}")),
            preregistered=ancient(P.preregistration),
        output:
            P.context_files("{cvar}", KEPT_SLUGS),
        log:
            P.context_log("{cvar}", "batch"),
        wildcard_constraints:
            cvar="|".join(BY_BATCH),
        priority: 10
        conda:
            "../envs/contexts.yaml"
        threads: 0
        params:
            **context_params(
                "{cvar}",
                context_llm,
                P.setting("contexts.attempts"),
                P.setting("contexts.backoff_s"),
            ),
            batch=P.setting("contexts.batch"),
            reply=P.setting("contexts.reply"),
        script:
            "../scripts/ctxret/stages/contexts.py"


if ONLINE or not BY_BATCH:

    # A paid variant online (A1, A2, ...): one job per document, its chunks one call after another
    # (prompt cache). A job waits on the network, not the CPU, so it holds no core (threads 0), but
    # for a local server on this machine (llm.server_threads), whose cores it holds so that no
    # embedding runs beside it: `llm_workers` caps the documents in flight whatever --cores is, and
    # a capped variant's own llm_workers_<name> its own. Priority: a free slot goes to the next
    # document before any other job.
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
            cvar="|".join(ONLINE) or "A1",
        priority: 10
        conda:
            "../envs/contexts.yaml"
        threads: context_threads
        resources:
            **variant_worker_claims(),
            llm_workers=1,
        params:
            **context_params(
                "{cvar}",
                context_llm,
                P.setting("contexts.attempts"),
                P.setting("contexts.backoff_s"),
            ),
            reply=P.setting("contexts.reply"),
        script:
            "../scripts/ctxret/stages/contexts.py"


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
        t1_template=verbatim("chunking.t1_template"),
        offline=P.setting("offline"),
    script:
        "../scripts/ctxret/stages/contexts_free.py"


# A variant whose contexts are read from a file (contexts.variants.<name>.file): every document in
# one job, which stops naming the chunks the file leaves without a context (found while the workflow
# is read, but for a chunker that reads a model: ctxret.config.preflight). Free, never stored.
GIVEN_VARIANTS = given_variants(P.context_variants)

if GIVEN_VARIANTS:

    rule contexts_file:
        input:
            docs=P.docs,
            chunks=P.chunks(),
            given=given_file,
            template=PROMPT,
        output:
            P.context_files("{cvar}", KEPT_SLUGS),
        log:
            P.context_log("{cvar}"),
        wildcard_constraints:
            cvar="|".join(GIVEN_VARIANTS),
        priority: 10
        conda:
            "../envs/contexts.yaml"
        params:
            **context_params("{cvar}", None, attempts=1, backoff_s=0),
            fields=given_fields,
            context_position=given_position,
            reply=P.setting("contexts.reply"),
        script:
            "../scripts/ctxret/stages/contexts.py"


# The ledger; for A1 beside the estimate made before the run.
rule contexts_stats:
    input:
        contexts=context_files,
        chunks=P.chunks(),
        prices=PRICES,
        estimate=context_estimate_of_paid,
    output:
        json=P.context_stats("{cvar}"),
    log:
        P.log("ctx-stats", "{cvar}"),
    conda:
        "../envs/contexts.yaml"
    params:
        variant="{cvar}",
    script:
        "../scripts/ctxret/stages/contexts.py"


rule contexts_estimate:
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
        llm=context_llm,
        extra_sentence=verbatim("contexts.extra_sentence"),
        output_tokens=P.setting("contexts.expected_output_tokens"),
    script:
        "../scripts/ctxret/stages/contexts.py"


rule contexts_length:
    input:
        contexts=context_files,
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
        offline=P.setting("offline"),
        language=P.setting("corpus.language"),
    script:
        "../scripts/ctxret/stages/contexts_length.py"


rule estimate:
    input:
        [P.context_estimate(v) for v in P.paid_variants],
        P.embed_time,
