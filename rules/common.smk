from pathlib import Path

import json
import sys

import yaml
from snakemake.utils import validate

sys.path.insert(0, str(Path(workflow.basedir) / "scripts"))
from ctxret import prep  # noqa: E402 (the package lives under scripts/)
from ctxret.questions import fingerprint  # noqa: E402

validate(config, schema="../config/schema.yaml")


R = config["results"]
STORE = config["store"]
QUESTION_FILES = list(config["questions"]["sets"].values())
QUESTIONS = f"{R}/questions.jsonl"  # the canonical question file (rule `questions`)


def _model_defaults():
    with open(Path(workflow.basedir) / "config" / "schema.yaml") as f:
        schema = yaml.safe_load(f)
    props = schema["properties"]["models"]["additionalProperties"]["properties"]
    return {k: v["default"] for k, v in props.items() if "default" in v}


MODELS = {name: {**_model_defaults(), **slot} for name, slot in config["models"].items()}


FREE_CONTEXT = {"backend": "heuristic"}  # X1: title, section and the chunk's first sentence


def _context_variants():
    """{variant: backend settings}: X1 (free, heuristic) and A1 (an LLM) when configured."""
    out = {}
    if config["contexts"]["free"]:
        out["X1"] = FREE_CONTEXT
    if config["contexts"]["llm"].get("backend"):
        out["A1"] = dict(config["contexts"]["llm"])
    return out


CONTEXT_VARIANTS = _context_variants()
VARIANTS = [*config["variants"], *CONTEXT_VARIANTS]
if "A1" not in CONTEXT_VARIANTS:
    print("A1 skipped: no LLM backend configured (contexts.llm.backend)", file=sys.stderr)


def kept_slugs():
    """The documents prep keeps: the frozen slug list, or (first run) the manifests' own."""
    slugs = Path(config["corpus"]["slugs"])
    if slugs.exists():
        return prep.read_slugs(slugs)
    metas = [json.loads(path.read_text(encoding="utf-8")) for path in article_files("*.json")]
    return [m.get("slug") for m in metas if not prep.excluded(m.get("tags", []), config["corpus"]["exclude_tags"])]


def context_files(variant):
    return [f"{R}/ctx/{variant}/docs/{slug}.jsonl" for slug in kept_slugs()]


def _check_config():
    for name, slot in MODELS.items():
        unknown = [v for v in slot["variants"] if v not in [*VARIANTS, "X1", "A1"]]
        if unknown:
            raise ValueError(f"config models.{name}.variants: {unknown} not among variants {VARIANTS}")
    for name in MODELS:
        if f"h{name}" in MODELS:
            raise ValueError(f"config models: {name!r} and 'h{name}' collide (hybrid names)")
    for group, sets in config["questions"]["groups"].items():
        unknown = [s for s in sets if s not in config["questions"]["sets"]]
        if unknown:
            raise ValueError(f"config questions.groups.{group}: unknown sets {unknown}")


_check_config()
for _slot in MODELS.values():
    _slot["variants"] = [v for v in _slot["variants"] if v in VARIANTS]


def article_files(pattern):
    found = sorted(Path(config["corpus"]["articles"]).glob(pattern))
    if pattern == "*.json" and not found:
        raise ValueError(f"config corpus.articles: no manifests (*.json) in {config['corpus']['articles']}")
    return found


def model_settings(name):
    """What a model slot's vectors depend on (not which variants it embeds or its threads)."""
    return {k: v for k, v in MODELS[name].items() if k not in ("variants", "threads", "flush_every")}


def models_for(variant):
    return [m for m, slot in MODELS.items() if variant in slot["variants"]]


def _hybrids():
    """{hybrid retriever name: (dense model, fusion preset)}: h<model> and h<model>.<preset>."""
    fusion = config["fusion"]
    for preset in [fusion["default"], *fusion["extra"]]:
        if preset not in fusion["presets"]:
            raise ValueError(f"config fusion: unknown preset {preset!r} (presets: {list(fusion['presets'])})")
    out = {}
    for m in MODELS:
        out[f"h{m}"] = (m, fusion["default"])
        out.update({f"h{m}.{p}": (m, p) for p in fusion["extra"]})
    return out


HYBRIDS = _hybrids()
# Searches and fusion write deep runs (runs/deep/), as deep as any fusion preset or the reranker
# reads; the runs that are scored (runs/) hold their first `search.top_k` (rule cut_runs).
TOP_K = config["search"]["top_k"]
SEARCH_DEPTH = max([TOP_K, config["rerank"]["top_n"] if config["rerank"]["enabled"] else 0] + [
    config["fusion"]["presets"][p]["depth"] for p in {p for _, p in HYBRIDS.values()}])


def deep_run(retriever, variant):
    return f"{R}/runs/deep/{retriever}-{variant}.jsonl"


def reranked_bases():
    rr = config["rerank"]
    return (rr["of"] or list(HYBRIDS)) if rr["enabled"] else []


def retrievers_for(variant):
    dense = models_for(variant)
    base = [*dense, "bm25", *(h for h, (m, _) in HYBRIDS.items() if m in dense)]
    return base + [f"r-{r}" for r in reranked_bases() if r in base]


CONDITIONS = [(r, v) for v in VARIANTS for r in retrievers_for(v)]


def run_file(retriever, variant):
    return f"{R}/runs/{retriever}-{variant}.jsonl"


def comparisons():
    pairs = []
    for a, b in config["pairs"]["variant_pairs"]:
        if a not in VARIANTS or b not in VARIANTS:
            continue
        for r in retrievers_for(a):
            if r in retrievers_for(b):
                pairs.append([f"{r}:{a}", f"{r}:{b}"])
    return pairs


def qdrant_params(variant):
    return {"qdrant_path": f"{R}/qdrant/v_{variant}", "qdrant_url": config["qdrant"]["url"],
            "api_key_env": config["qdrant"]["api_key_env"]}


def final_outputs():
    return [f"{R}/score.md", f"{R}/score.json", f"{R}/score.parquet", f"{R}/runs/qrels.txt",
            f"{R}/pairs.md", f"{R}/pairs.json",
            f"{R}/report/failure.png", f"{R}/report/pairs.png", f"{R}/report/summary.html"]


def intermediate_outputs():
    out = [f"{R}/docs-all.jsonl", f"{R}/docs.jsonl", f"{R}/chunks.jsonl", QUESTIONS, f"{R}/gold.json"]
    out += [f"{R}/var-{v}.jsonl" for v in VARIANTS]
    out += [f"{R}/emb/{v}-{m}.npy" for v in VARIANTS for m in models_for(v)]
    out += [f"{R}/emb/q-{m}.npy" for m in MODELS]
    out.append(f"{R}/tokens.json")
    out += [f"{R}/index/v_{v}.json" for v in VARIANTS]
    for v in CONTEXT_VARIANTS:
        out += [f"{R}/ctx/{v}/stats.json", f"{R}/ctx/{v}/ctxlen.json"]
    if "A1" in CONTEXT_VARIANTS:
        out.append(f"{R}/ctx/A1/estimate.json")
    out += [run_file(r, v) for r, v in CONDITIONS]
    return out


wildcard_constraints:
    variant="|".join(VARIANTS),
    hybrid="|".join(h.replace(".", r"\.") for h in HYBRIDS),
    base="|".join(r.replace(".", r"\.") for r in reranked_bases()) or "(?!)",
    cvar="X1|A1",
    model="|".join(MODELS),
