rule tokens:
    input:
        variants=[f"{R}/var-{v}.jsonl" for v in VARIANTS],
    output:
        tokens=f"{R}/tokens.json",
    log:
        f"{R}/logs/tokens.log",
    params:
        variants=VARIANTS,
        models={m: model_settings(m) for m in MODELS},
        offline=config["offline"],
    conda:
        "../envs/embed.yaml"
    script:
        "../scripts/tokens.py"
