rule manifest:
    input:
        P.intermediate_outputs(),
        P.final_outputs(),
    output:
        manifest=P.manifest,
    log:
        P.log("manifest"),
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/ctxret/stages/manifest.py"
