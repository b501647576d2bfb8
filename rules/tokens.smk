rule tokens:
    input:
        variants=[f"{R}/var-{v}.jsonl" for v in P.variant_names],
    output:
        tokens=f"{R}/tokens.json",
    log:
        f"{R}/logs/tokens.log",
    conda:
        "../envs/embed.yaml"
    params:
        variants=P.variant_names,
        models={m: P.model_settings(m) for m in P.models},
        offline=config["offline"],
    script:
        "../scripts/stage.py"
