from pathlib import Path

import re
import sys

# The package of this checkout, here and in every job
SCRIPTS = str(Path(workflow.basedir) / "scripts")
sys.path.insert(0, SCRIPTS)
from ctxret.stage import jobs_import_from  # noqa: E402

jobs_import_from(SCRIPTS)
from ctxret import embed, guards, language, prep, runlock, written  # noqa: E402 (the package lives under scripts/)
from ctxret.chunkers import NEEDS_MODEL  # noqa: E402
from ctxret.errors import InputError  # noqa: E402
from ctxret.ctxreport import load_prices  # noqa: E402
from ctxret.importers import corpus_files, set_files, set_problem  # noqa: E402
from ctxret.ledger import model_prices  # noqa: E402
from ctxret.llm import make_backend  # noqa: E402
from ctxret.models import known_prefixes, model_dir  # noqa: E402
from ctxret.paired import resolve_primary  # noqa: E402
from ctxret.planning import planning_side  # noqa: E402
from ctxret.prompt import read_prompt  # noqa: E402
from ctxret.questionset import fingerprint, load_question_sets  # noqa: E402
from ctxret.settings import complete, merged, read_config, schema_default, where  # noqa: E402


def fail(error):
    """Stop while the workflow is read, with one line (no traceback)."""
    sys.exit(f"error: {error}")


def config_error(key, message):
    """A problem with the config value at `key` (dotted), named by file and line."""
    path = [int(k) if k.isdigit() else k for k in key.split(".")]
    return InputError(f"{where(CONFIG_FILES, path)}: {key}: {message}")


def workflow_file(path):
    """A file the config names: as given, or (relative and not in the working directory) the
    workflow's own copy, so that the defaults work from any directory."""
    return path if Path(path).is_absolute() or Path(path).exists() else str(Path(workflow.basedir) / path)


# The demo experiment when no --configfile is given (--config values still apply); a user's
# file stands alone: only the schema's defaults fill it in, nothing of the demo's.
CONFIG_FILES = tuple(map(str, workflow.overwrite_configfiles)) or ("config/config.yaml",)
try:
    if not workflow.overwrite_configfiles:
        config.update(merged(read_config(workflow_file(CONFIG_FILES[0])), dict(config)))
    _completed = complete(config, CONFIG_FILES)
except InputError as e:
    fail(e)
config.clear()
config.update(_completed)


R = config["results"]
STORE = config["store"]
CORPUS = config["corpus"]
LANGUAGE = CORPUS["language"]
CHUNKING = config["chunking"]
CHUNKER = CHUNKING["chunker"] or ("given" if CORPUS["format"] == "chunked" else "paragraph")
COMPARED = [c for c in CHUNKING["compare"] if c != CHUNKER]  # strategies compared with CHUNKER on T1
T1_TEMPLATE = CHUNKING["t1_template"]
PROMPT = workflow_file(config["contexts"]["prompt"])
PRICES = workflow_file(config["contexts"]["prices"])
EXTRA_SENTENCE = config["contexts"]["extra_sentence"] or language.extra_sentence(LANGUAGE)
BM25 = {**config["bm25"], "analyser": config["bm25"]["analyser"] or language.bm25_analyser(LANGUAGE)}
config["report"]["language"] = config["report"]["language"] or language.report_language(LANGUAGE)  # for every reader
QUESTION_SETS = config["questions"]["sets"]
QUESTIONS = f"{R}/questions.jsonl"  # the canonical question file (rule `questions`)
GROUPS = config["questions"]["groups"] or {name: [name] for name in QUESTION_SETS}
MAIN_GROUP = config["score"]["main_group"] or next(iter(GROUPS))
if not config["score"]["main_group"] and len(GROUPS) > 1:
    print(
        f"score.main_group: {MAIN_GROUP} (the first group: name it, so that key order cannot move it)", file=sys.stderr
    )
config["score"]["main_group"] = MAIN_GROUP  # resolved once, for every reader (the report's captions too)
MODELS = config["models"]  # slots with their defaults (settings.complete)
DENSE = config["pairs"]["dense"] or next(iter(MODELS), "")
FREE_CONTEXT = {"backend": "heuristic", "language": LANGUAGE}  # X1: from the document structure
CONTEXT_VARIANTS = {
    **({"X1": FREE_CONTEXT} if config["contexts"]["free"] else {}),
    **({"A1": config["contexts"]["llm"]} if config["contexts"]["llm"]["backend"] else {}),
}
VARIANTS = [*config["variants"], *CONTEXT_VARIANTS]
if "A1" not in CONTEXT_VARIANTS:
    print("A1 skipped: no LLM backend configured (contexts.llm.backend)", file=sys.stderr)


def chunk_tag(chunker):
    """The experiment's chunker writes chunks.jsonl, a compared one chunks-<chunker>.jsonl."""
    return "" if chunker == CHUNKER else f"-{chunker}"


def chunker_of(tag):
    return tag[1:] if tag else CHUNKER


def variant_chunker(variant):
    """A compared strategy's T1 is the variant T1.<chunker>."""
    return variant.partition(".")[2] or CHUNKER


def chunker_model(chunker):
    """The model slot a strategy reads (recursive: its tokenizer; semantic: its vectors), or None."""
    key = NEEDS_MODEL.get(chunker)
    return (CHUNKING[chunker][key] or DENSE) if key else None


def chunker_settings(chunker):
    """What a strategy's boundaries depend on (its own settings and model)."""
    own = (
        {"max_chars": CHUNKING["max_chars"]}
        if chunker == "paragraph"
        else ({chunker: CHUNKING[chunker]} if chunker in CHUNKING else {})
    )
    model = chunker_model(chunker)
    return {**own, **({"model": model_settings(model)} if model else {})}


COMPARED_VARIANTS = [f"T1.{c}" for c in COMPARED]


def context_files(variant):
    return [f"{R}/ctx/{variant}/docs/{slug}.jsonl" for slug in KEPT_SLUGS]


def _resolve_prefixes(name, slot):
    """A prefix left out (null) becomes the model's own; a model ctxret does not know needs both."""
    if slot["query_prefix"] is not None and slot["passage_prefix"] is not None:
        return
    known = known_prefixes(slot)
    if known is None:
        raise config_error(
            f"models.{name}",
            f"ctxret does not know the prefixes model {slot['model']!r} was trained with; "
            'state query_prefix and passage_prefix ("" for none)',
        )
    for key, value in zip(("query_prefix", "passage_prefix"), known):
        slot[key] = value if slot[key] is None else slot[key]


def _check_references():
    """Every name the config uses refers to something of this run."""
    for name in MODELS:
        if f"h{name}" in MODELS:
            raise config_error(f"models.h{name}", f"collides with the hybrid of model slot {name!r}")
        _resolve_prefixes(name, MODELS[name])
    for name, spec in QUESTION_SETS.items():
        if set_problem(spec, CORPUS):
            raise config_error(f"questions.sets.{name}", set_problem(spec, CORPUS))
    for key, sets in [
        *((f"questions.groups.{g}", s) for g, s in GROUPS.items()),
        ("questions.gap_sets", config["questions"]["gap_sets"]),
    ]:
        unknown = [s for s in sets if s not in QUESTION_SETS]
        if unknown:
            raise config_error(key, f"{unknown} are not question sets ({', '.join(QUESTION_SETS)})")
    try:
        re.compile(config["questions"]["cluster_key"])
    except re.error as e:
        raise config_error(
            "questions.cluster_key", f"{config['questions']['cluster_key']!r} is not a regular expression ({e})"
        ) from None
    if MAIN_GROUP not in GROUPS:
        raise config_error("score.main_group", f"{MAIN_GROUP!r} is not a group ({', '.join(GROUPS)})")
    if config["pairs"]["dense"] and config["pairs"]["dense"] not in MODELS:
        raise config_error(
            "pairs.dense",
            f"{config['pairs']['dense']!r} is not a model slot ({', '.join(MODELS) or 'models is empty'})",
        )
    if config["pairs"]["fallback_variant"] not in ("T0", "T1", "X1"):
        raise config_error(
            "pairs.fallback_variant",
            f"{config['pairs']['fallback_variant']!r} is not a variant that needs no LLM (T0, T1, X1)",
        )
    presets = config["fusion"]["presets"]
    for key, preset in [
        ("fusion.default", config["fusion"]["default"]),
        *((f"fusion.extra.{i}", p) for i, p in enumerate(config["fusion"]["extra"])),
    ]:
        if preset not in presets:
            raise config_error(key, f"{preset!r} is not a preset ({', '.join(presets)})")
    for chunker in [CHUNKER, *COMPARED]:
        model = chunker_model(chunker)
        if model is not None and model not in MODELS:
            raise config_error(
                f"chunking.{chunker}.{NEEDS_MODEL[chunker]}",
                f"{model!r} is not a model slot ({', '.join(MODELS) or 'models is empty'})",
            )
    if COMPARED and "T1" not in config["variants"]:
        raise config_error("chunking.compare", "strategies are compared on T1, which variants lacks")
    if CORPUS["slugs"] and CORPUS["format"] != "manifests":
        raise config_error("corpus.slugs", f"a frozen slug list is for format manifests, not {CORPUS['format']!r}")
    for key, message in [
        *guards.place_problems(R, STORE, Path(workflow.basedir)),
        *guards.cutoff_problems(config["score"]["ks"], config["search"]["top_k"]),
        *guards.overlap_problems(CHUNKING),
        *guards.fusion_problems(config["fusion"]["presets"]),
    ]:
        raise config_error(key, message)


def _check_before_paying():
    """What would fail only later, checked before any job: the prompt and the price table, the LLM
    backend (its executable, its key's variable), the price of its model, every model's weights
    when offline, and the Qdrant server when one is named."""
    read_prompt(PROMPT)
    prices = load_prices(PRICES)
    if "A1" in CONTEXT_VARIANTS:
        make_backend(CONTEXT_VARIANTS["A1"])
        model_prices(prices, CONTEXT_VARIANTS["A1"]["model"])
    if config["qdrant"]["url"]:
        from ctxret.qdrant import server_client  # qdrant-client: imported only for a server

        with server_client(config["qdrant"]["url"], config["qdrant"]["api_key_env"]):
            pass
    hub = [slot for slot in MODELS.values() if slot["backend"] in ("sentence-transformers", "flagembedding")]
    for settings in hub + ([config["rerank"]] if config["rerank"]["enabled"] else []):
        model_dir(settings, config["offline"])


try:
    _check_references()
    KEPT_SIZES = prep.kept_sizes(CORPUS, STORE)
    KEPT_SLUGS = list(KEPT_SIZES)
    EMBED_SHARDS = embed.plan_shards(KEPT_SIZES, CHUNKING["max_chars"], config["embed"]["shard_texts"])
    QUESTION_FILES = [p for spec in QUESTION_SETS.values() for p in set_files(spec, CORPUS)]
    QUESTIONS_CONTENT = fingerprint(QUESTION_SETS, CORPUS)  # checks every JSONL set
    if workflow.is_main_process:  # once per run (jobs skip it)
        load_question_sets({n: s for n, s in QUESTION_SETS.items() if s["format"] != "jsonl"}, CORPUS)
except InputError as e:
    fail(e)


def model_settings(name):
    """What a model slot's vectors depend on (not which variants it embeds or its threads)."""
    return {k: v for k, v in MODELS[name].items() if k not in ("variants", "threads", "flush_every")}


def embedding_params():
    """What an embedding job of the slot {model} needs: its settings, the store, the flush size."""
    return dict(
        model_name="{model}",
        model=lambda wc: model_settings(wc.model),
        store=STORE,
        flush_every=lambda wc: MODELS[wc.model]["flush_every"],
        offline=config["offline"],
    )


def context_params(variant, llm, attempts, backoff_s):
    """What a context job needs: the variant, its backend's settings, the prompt's extra sentence,
    the store and the retries."""
    return dict(
        variant=variant, llm=llm, extra_sentence=EXTRA_SENTENCE, store=STORE, attempts=attempts, backoff_s=backoff_s
    )


def models_for(variant):
    """The model slots that embed a variant (a compared strategy's T1.<chunker> as T1)."""
    return [m for m, slot in MODELS.items() if variant.partition(".")[0] in slot["variants"]]


def _hybrids():
    """{hybrid retriever name: (dense model, fusion preset)}: h<model> and h<model>.<preset>."""
    fusion = config["fusion"]
    out = {}
    for m in MODELS:
        out[f"h{m}"] = (m, fusion["default"])
        out.update({f"h{m}.{p}": (m, p) for p in fusion["extra"]})
    return out


HYBRIDS = _hybrids()
# Searches and fusion write deep runs (runs/deep/), as deep as any fusion preset or the reranker
# reads; the runs that are scored (runs/) hold their first `search.top_k` (rule cut_runs).
TOP_K = config["search"]["top_k"]


def fusion_depth(preset):
    """Entries a hybrid reads from each list: the preset's depth, never fewer than search.top_k
    (so a hybrid run holds as many chunks as the runs it fuses)."""
    return max(config["fusion"]["presets"][preset]["depth"], TOP_K)


SEARCH_DEPTH = max(
    [TOP_K, config["rerank"]["top_n"] if config["rerank"]["enabled"] else 0]
    + [fusion_depth(p) for p in {p for _, p in HYBRIDS.values()}]
)


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
CONDITION_NAMES = [f"{r}:{v}" for r, v in CONDITIONS]


def _check_runs():
    """rerank.of and the primary comparisons name runs and conditions of this configuration."""
    bases = {r for v in VARIANTS for r in retrievers_for(v) if not r.startswith("r-")}
    unknown = [r for r in config["rerank"]["of"] if r not in bases]
    if config["rerank"]["enabled"] and unknown:
        raise config_error("rerank.of", f"{unknown} are not runs ({', '.join(sorted(bases))})")
    specs = config["pairs"]["primary"]
    for i, spec in enumerate(specs):
        if not DENSE and "{dense}" in spec["a"] + spec["b"]:
            raise config_error(
                f"pairs.primary.{i}",
                "{dense} needs a dense model, and models is empty; "
                "declare primaries such as {a: 'bm25:T0', b: 'bm25:T1'}",
            )
    defaults = specs == schema_default("pairs", "primary")
    primary, used = resolve_primary(
        [{**p, "group": p["group"] or MAIN_GROUP} for p in specs],
        CONDITION_NAMES,
        DENSE,
        config["pairs"]["fallback_variant"],
        list(GROUPS),
        lambda i, message: config_error(f"pairs.primary.{i}", message),
        skip_missing=defaults,
    )
    if defaults and len(primary) < len(specs) and workflow.is_main_process:
        print(
            f"pairs.primary: {len(specs) - len(primary)} of the default primary comparisons left out: this run has "
            f"neither A1 nor the fallback {config['pairs']['fallback_variant']} for them"
            + ("" if primary else "; no primary comparison, so no verdict (declare pairs.primary for one)"),
            file=sys.stderr,
        )
    fallback = config["pairs"]["fallback_variant"]
    for p in primary if "A1" in CONTEXT_VARIANTS and workflow.is_main_process else []:
        missing = [c for c in (planning_side(p[s], "A1", fallback) for s in "ab") if c not in CONDITION_NAMES]
        if missing:  # the preregistration says so too
            print(
                f"pairs.primary: {p['a']} vs {p['b']}: no power estimate before paying, as this run has no "
                f"{missing[0]} (add {fallback} to that model's variants)",
                file=sys.stderr,
            )
    return primary, used


try:
    PRIMARY, FALLBACK_USED = _check_runs()
    if workflow.is_main_process:
        _check_before_paying()
except InputError as e:
    fail(e)


def hold_results():
    """Called as the run starts (`onstart`, never in a dry run): results/ is this run's until it ends."""
    global RUN_LOCK
    try:
        RUN_LOCK = runlock.hold(R, workflow.basedir)  # held while this process lives
    except InputError as e:
        fail(e)


def chunking_strategies():
    """The experiment's chunker (on T1) and each compared one (on T1.<chunker>), with their runs."""
    return [
        {"name": c, "variant": v, "retrievers": retrievers_for(v)}
        for c, v in zip([CHUNKER, *COMPARED], ["T1", *COMPARED_VARIANTS])
    ]


COMPARED_CONDITIONS = [(r, s["variant"]) for s in chunking_strategies()[1:] for r in s["retrievers"]]


def llm_workers():
    """The documents in flight during A1: the llm_workers resource (profiles/default: 4). Known to
    the run's main process only (a cluster job's own Snakemake is not given it): rule plan, which
    records it, is a local rule."""
    workers = getattr(workflow.global_resources.get("llm_workers"), "value", None)
    return int(workers) if workers is not None else 1


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


def qdrant_path(variant):
    """An embedded collection's directory (unused with a server, `qdrant.url`)."""
    return f"{R}/qdrant/v_{variant}"


def final_outputs():
    compared = (
        [f"{R}/chunking.md", f"{R}/chunking.json", f"{R}/chunking-audit.tsv", f"{R}/report/chunking.png"]
        if COMPARED
        else []
    )
    return [
        f"{R}/score.md",
        f"{R}/score.json",
        f"{R}/score.parquet",
        f"{R}/runs/qrels.txt",
        f"{R}/pairs.md",
        f"{R}/pairs.json",
        f"{R}/report/failure.png",
        f"{R}/report/pairs.png",
        f"{R}/report/summary.html",
        *compared,
    ]


def intermediate_outputs():
    out = [
        f"{R}/docs-all.jsonl",
        f"{R}/docs.jsonl",
        f"{R}/chunks.jsonl",
        QUESTIONS,
        f"{R}/question-sets.json",
        f"{R}/gold.json",
        f"{R}/plan.json",
        f"{R}/preregistration.json",
        f"{R}/preregistration.md",
    ]
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
    variant="|".join(v.replace(".", r"\.") for v in [*VARIANTS, *COMPARED_VARIANTS]),
    tag="(?:" + "|".join(["", *(f"-{c}" for c in COMPARED)]) + ")",
    hybrid="|".join(h.replace(".", r"\.") for h in HYBRIDS) or "(?!)",
    base="|".join(r.replace(".", r"\.") for r in reranked_bases()) or "(?!)",
    cvar="X1|A1",
    model="|".join(MODELS) or "(?!)",


def rerun_damaged():
    """A result changed or cut after the job that wrote it (its size or content no longer what that
    job recorded) is moved aside, one line each; those the run names (the manifest's) are its
    targets, so the job that wrote them runs again, and what reads them. Not while another run
    holds results/ (that run is writing them; this one will be refused)."""
    if not workflow.is_main_process or runlock.held(R):
        return []
    damaged = written.set_aside_damaged(R, workflow.output_settings.dryrun)
    for _, line in damaged:
        print(line, file=sys.stderr)
    named = {*intermediate_outputs(), *final_outputs()}
    return [] if workflow.output_settings.dryrun else [p for p, _ in damaged if p in named]


DAMAGED = rerun_damaged()
