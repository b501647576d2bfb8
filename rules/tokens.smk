rule tokens:
    input:
        variants=[P.variant_file(v) for v in P.variant_names],
    output:
        tokens=P.tokens,
    log:
        P.log("tokens"),
    conda:
        "../envs/embed.yaml"
    params:
        variants=P.variant_names,
        models={m: P.model_settings(m) for m in P.models},
        offline=P.setting("offline"),
    script:
        "../scripts/ctxret/stages/tokens.py"
