rule prep:
    input:
        manifests=article_files("*.json"),
        bodies=article_files("*.mdx"),
    output:
        docs_all=f"{R}/docs-all.jsonl",
        docs=f"{R}/docs.jsonl",
    log:
        f"{R}/logs/prep.log",
    params:
        slugs=config["corpus"]["slugs"],
        exclude_tags=config["corpus"]["exclude_tags"],
    conda:
        "../envs/data.yaml"
    script:
        "../scripts/prep.py"
