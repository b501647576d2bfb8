rule contexts:
    input:
        docs=f"{R}/docs.jsonl",
        chunks=f"{R}/chunks.jsonl",
        template=config["contexts"]["prompt"],
    output:
        doc=f"{R}/ctx/{{cvar}}/docs/{{slug}}.jsonl",
    log:
        f"{R}/logs/ctx/{{cvar}}-{{slug}}.log",
    params:
        variant="{cvar}",
        slug="{slug}",
        llm=lambda wc: CONTEXT_VARIANTS[wc.cvar],
        extra_sentence=config["contexts"]["extra_sentence"],
        store=STORE,
        attempts=config["contexts"]["attempts"],
        backoff_s=config["contexts"]["backoff_s"],
    threads: 1
    resources:
        llm_workers=lambda wc: 0 if wc.cvar == "X1" else 1,
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/contexts.py"


rule ctx_stats:
    input:
        contexts=lambda wc: context_files(wc.cvar),
        chunks=f"{R}/chunks.jsonl",
        prices=config["contexts"]["prices"],
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
        template=config["contexts"]["prompt"],
        prices=config["contexts"]["prices"],
    output:
        json=f"{R}/ctx/{{cvar}}/estimate.json",
    log:
        f"{R}/logs/ctx-estimate-{{cvar}}.log",
    params:
        llm=lambda wc: CONTEXT_VARIANTS[wc.cvar],
        extra_sentence=config["contexts"]["extra_sentence"],
        output_tokens=config["contexts"]["expected_output_tokens"],
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/ctx_estimate.py"


rule ctx_ctxlen:
    input:
        contexts=lambda wc: context_files(wc.cvar),
        questions=QUESTION_FILES,
    output:
        json=f"{R}/ctx/{{cvar}}/ctxlen.json",
    log:
        f"{R}/logs/ctx-ctxlen-{{cvar}}.log",
    params:
        variant="{cvar}",
        sets=config["questions"]["sets"],
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
