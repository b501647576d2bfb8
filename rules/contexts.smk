# An LLM variant (A1): one job per document, its chunks one call after another (prompt cache);
# llm_workers caps the documents in flight.
rule contexts:
    input:
        docs=f"{R}/docs.jsonl",
        chunks=f"{R}/chunks.jsonl",
        template=PROMPT,
    output:
        f"{R}/ctx/{{cvar}}/docs/{{slug}}.jsonl",
    log:
        f"{R}/logs/ctx/{{cvar}}-{{slug}}.log",
    wildcard_constraints:
        cvar="A1",
    params:
        variant="{cvar}",
        llm=lambda wc: CONTEXT_VARIANTS[wc.cvar],
        extra_sentence=EXTRA_SENTENCE,
        store=STORE,
        attempts=config["contexts"]["attempts"],
        backoff_s=config["contexts"]["backoff_s"],
    threads: 1
    resources:
        llm_workers=1,
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/contexts.py"


# The free variant (X1): every document in one job. It costs milliseconds a document, and
# per-document jobs would each start Python and reread the whole corpus.
rule contexts_free:
    input:
        docs=f"{R}/docs.jsonl",
        chunks=f"{R}/chunks.jsonl",
        template=PROMPT,
    output:
        context_files("X1"),
    log:
        f"{R}/logs/ctx/X1.log",
    params:
        variant="X1",
        llm=FREE_CONTEXT,
        extra_sentence=EXTRA_SENTENCE,
        store=STORE,
        attempts=1,
        backoff_s=0,
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/contexts.py"


rule ctx_stats:
    input:
        contexts=lambda wc: context_files(wc.cvar),
        chunks=f"{R}/chunks.jsonl",
        prices=PRICES,
    output:
        json=f"{R}/ctx/{{cvar}}/stats.json",
    log:
        f"{R}/logs/ctx-stats-{{cvar}}.log",
    params:
        variant="{cvar}",
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/ctx_stats.py"


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
    params:
        llm=lambda wc: CONTEXT_VARIANTS[wc.cvar],
        extra_sentence=EXTRA_SENTENCE,
        output_tokens=config["contexts"]["expected_output_tokens"],
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/ctx_estimate.py"


rule ctx_ctxlen:
    input:
        contexts=lambda wc: context_files(wc.cvar),
        questions=QUESTIONS,
    output:
        json=f"{R}/ctx/{{cvar}}/ctxlen.json",
    log:
        f"{R}/logs/ctx-ctxlen-{{cvar}}.log",
    params:
        variant="{cvar}",
        models={m: model_settings(m) for m in MODELS},
        offline=config["offline"],
    conda:
        "../envs/embed.yaml"
    script:
        "../scripts/ctx_ctxlen.py"


rule estimate:
    input:
        [f"{R}/ctx/{v}/estimate.json" for v in CONTEXT_VARIANTS if v == "A1"],
    default_target: False
