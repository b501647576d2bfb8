from pathlib import Path

import yaml
from snakemake.utils import validate

validate(config, schema="../config/schema.yaml")


R = config["results"]
STORE = config["store"]
QUESTION_FILES = list(config["questions"]["sets"].values())


def _model_defaults():
    with open(Path(workflow.basedir) / "config" / "schema.yaml") as f:
        schema = yaml.safe_load(f)
    props = schema["properties"]["models"]["additionalProperties"]["properties"]
    return {k: v["default"] for k, v in props.items() if "default" in v}


MODELS = {name: {**_model_defaults(), **slot} for name, slot in config["models"].items()}
VARIANTS = list(config["variants"])


def _check_config():
    for name, slot in MODELS.items():
        unknown = [v for v in slot["variants"] if v not in VARIANTS]
        if unknown:
            raise ValueError(f"config models.{name}.variants: {unknown} not among variants {VARIANTS}")
    for name in MODELS:
        if f"h{name}" in MODELS:
            raise ValueError(f"config models: {name!r} and {'h' + name!r} collide (hybrid names)")
    for group, sets in config["questions"]["groups"].items():
        unknown = [s for s in sets if s not in config["questions"]["sets"]]
        if unknown:
            raise ValueError(f"config questions.groups.{group}: unknown sets {unknown}")


_check_config()


def article_files(pattern):
    found = sorted(Path(config["corpus"]["articles"]).glob(pattern))
    if pattern == "*.json" and not found:
        raise ValueError(f"config corpus.articles: no manifests (*.json) in {config['corpus']['articles']}")
    return found


def models_for(variant):
    return [m for m, slot in MODELS.items() if variant in slot["variants"]]


def retrievers_for(variant):
    dense = models_for(variant)
    return dense + ["bm25"] + [f"h{m}" for m in dense]


CONDITIONS = [(r, v) for v in VARIANTS for r in retrievers_for(v)]


def run_file(retriever, variant):
    return f"{R}/runs/{retriever}-{variant}.jsonl"


def comparisons():
    pairs = []
    for a, b in config["pairs"]["variant_pairs"]:
        for r in retrievers_for(a):
            if r in retrievers_for(b):
                pairs.append([f"{r}:{a}", f"{r}:{b}"])
    return pairs


def qdrant_params(variant):
    return {"qdrant_path": f"{R}/qdrant/v_{variant}", "qdrant_url": config["qdrant"]["url"],
            "api_key_env": config["qdrant"]["api_key_env"]}


def final_outputs():
    return [f"{R}/score.md", f"{R}/score.json", f"{R}/pairs.md", f"{R}/pairs.json"]


def intermediate_outputs():
    out = [f"{R}/docs-all.jsonl", f"{R}/docs.jsonl", f"{R}/chunks.jsonl", f"{R}/gold.json"]
    out += [f"{R}/var-{v}.jsonl" for v in VARIANTS]
    out += [f"{R}/emb/{v}-{m}.npy" for v in VARIANTS for m in models_for(v)]
    out += [f"{R}/emb/q-{m}.npy" for m in MODELS]
    out += [f"{R}/index/v_{v}.json" for v in VARIANTS]
    out += [run_file(r, v) for r, v in CONDITIONS]
    return out


wildcard_constraints:
    variant="|".join(VARIANTS),
    model="|".join(MODELS),
