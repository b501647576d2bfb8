rule embed_chunks:
    input:
        variant=f"{R}/var-{{variant}}.jsonl",
    output:
        npy=f"{R}/emb/{{variant}}-{{model}}.npy",
        meta=f"{R}/emb/{{variant}}-{{model}}.json",
    log:
        f"{R}/logs/embed-{{variant}}-{{model}}.log",
    params:
        variant="{variant}",
        model_name="{model}",
        model=lambda wc: model_settings(wc.model),
        store=STORE,
        flush_every=lambda wc: MODELS[wc.model]["flush_every"],
        offline=config["offline"],
    threads: lambda wc: MODELS[wc.model]["threads"]
    conda:
        "../envs/embed.yaml"
    script:
        "../scripts/embed_chunks.py"


rule embed_questions:
    input:
        questions=QUESTIONS,
    output:
        npy=f"{R}/emb/q-{{model}}.npy",
        meta=f"{R}/emb/q-{{model}}.json",
    log:
        f"{R}/logs/embed-q-{{model}}.log",
    params:
        model_name="{model}",
        model=lambda wc: model_settings(wc.model),
        store=STORE,
        flush_every=lambda wc: MODELS[wc.model]["flush_every"],
        offline=config["offline"],
    threads: lambda wc: MODELS[wc.model]["threads"]
    conda:
        "../envs/embed.yaml"
    script:
        "../scripts/embed_questions.py"
