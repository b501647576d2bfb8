rule manifest:
    input:
        P.intermediate_outputs(),
        P.final_outputs(),
    output:
        manifest=f"{R}/manifest.tsv",
    log:
        f"{R}/logs/manifest.log",
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/stage.py"
