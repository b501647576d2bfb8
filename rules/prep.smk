rule prep:
    input:
        manifests=sorted(Path(config["corpus"]["articles"]).glob("*.json")),
        bodies=sorted(Path(config["corpus"]["articles"]).glob("*.mdx")),
    output:
        docs_all=f"{R}/docs-all.jsonl",
        docs=f"{R}/docs.jsonl",
    log:
        f"{R}/logs/prep.log",
    params:
        articles=config["corpus"]["articles"],
        slugs=config["corpus"]["slugs"],
        exclude_tags=config["corpus"]["exclude_tags"],
    script:
        "../scripts/prep.py"
