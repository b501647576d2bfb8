rule embed_chunks:
    input:
        variant=f"{R}/var-{{variant}}.jsonl",
    output:
        npy=f"{R}/emb/{{variant}}-{{model}}.npy",
        meta=f"{R}/emb/{{variant}}-{{model}}.json",
    log:
        f"{R}/logs/embed-{{variant}}-{{model}}.log",
    conda:
        "../envs/embed.yaml"
    threads: lambda wc: MODELS[wc.model]["threads"]
    params:
        **embedding_params(),
        variant="{variant}",
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
    conda:
        "../envs/embed.yaml"
    threads: lambda wc: MODELS[wc.model]["threads"]
    params:
        **embedding_params(),
    script:
        "../scripts/embed_questions.py"
