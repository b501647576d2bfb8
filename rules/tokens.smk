rule tokens:
    input:
        variants=[f"{R}/var-{v}.jsonl" for v in VARIANTS],
    output:
        tokens=f"{R}/tokens.json",
    log:
        f"{R}/logs/tokens.log",
    conda:
        "../envs/embed.yaml"
    params:
        variants=VARIANTS,
        models={m: model_settings(m) for m in MODELS},
        offline=config["offline"],
    script:
        "../scripts/tokens.py"
