rule manifest:
    input:
        intermediate_outputs(),
        final_outputs(),
    output:
        manifest=f"{R}/manifest.tsv",
    log:
        f"{R}/logs/manifest.log",
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/manifest.py"
