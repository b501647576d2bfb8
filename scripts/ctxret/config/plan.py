"""The plan of the experiment: from a completed config, every chunker, variant, model slot,
retriever, condition and output file of a run, each built once as a record (pure: no file is read).

The rules read its fields and pass its records on (a retriever's kind, a variant's base), so no
stage parses a name such as `h<model>.<preset>`, `r-<run>` or `T1.<chunker>` again. A setting that
names nothing of this run is a Problem: the dotted key and what to do, for the config's file and line.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from fnmatch import fnmatchcase as fnmatch
from pathlib import Path

from ctxret import languages
from ctxret.chunkers import CHUNKERS
from ctxret.config import checks
from ctxret.config.layout import Layout, generated_files
from ctxret.config.schema import complete, merged, schema_default
from ctxret.contexts.llm import backend_spec, free_context, priced_model
from ctxret.embedding.models import known_positions, known_prefixes
from ctxret.errors import InputError
from ctxret.evaluation import metrics
from ctxret.evaluation.metrics import condition_name
from ctxret.evaluation.paired import resolve_primary
from ctxret.evaluation.preregistration import planning_side
from ctxret.importers import set_problem
from ctxret.retrieval.fusion import FusionPreset
from ctxret.yaml_lines import where

FREE_VARIANT, PAID_VARIANT = "X1", "A1"  # contexts from the document's structure; from an LLM
GIVEN = "file"  # a named context variant's setting naming the file its contexts are read from
SLOT_ONLY = ("variants", "threads", "flush_every")  # a slot's settings its vectors do not depend on
# Settings that say where a run reads and writes, how fast it goes or how it looks, never what it
# finds (dotted keys, `*` any name): left out of what a preregistration commits to. The corpus and
# the questions are committed by their content, not by their paths.
NOT_COMMITTED = ("results", "store", "offline", "embed.*", "qdrant.*", "report.*", "corpus.path", "corpus.slugs",
                 "questions.sets.*.path", "models.*.threads", "models.*.flush_every", "bm25.threads",
                 "search.recall_sample", "rerank.threads", "rerank.batch_size", "contexts.attempts",
                 "contexts.backoff_s", "contexts.prices", "contexts.seconds_per_call", "contexts.expected_output_tokens",
                 "contexts.llm.timeout_s", "contexts.llm.api_key_env", "contexts.llm.executable", "contexts.llm.strip_env",
                 "contexts.variants.*.llm.timeout_s", "contexts.variants.*.llm.api_key_env",
                 "contexts.variants.*.llm.executable", "contexts.variants.*.llm.strip_env", "contexts.batch.*",
                 "contexts.llm_workers", "contexts.variants.*.llm_workers")


class Problem(InputError):
    """A setting that cannot run: `key` (dotted) and what is wrong with it."""

    def __init__(self, key: str, message: str):
        super().__init__(f"{key}: {message}")
        self.key, self.message = key, message

    def located(self, sources: tuple[str, ...]) -> str:
        """The problem as one line naming the config file and line that set the key."""
        path = [int(k) if k.isdigit() else k for k in self.key.split(".")]
        return f"{where(sources, path)}: {self.key}: {self.message}"


@dataclass(frozen=True)
class Chunker:
    name: str
    tag: str        # its chunks file's: "" for the experiment's chunker, "-<name>" for a compared one
    variant: str    # the variant its T1 is scored as: T1, or T1.<name> for a compared one
    model: str | None   # the model slot it reads (recursive: a tokenizer; semantic: vectors)
    settings: dict  # what its boundaries depend on: its own settings and its model's


@dataclass(frozen=True)
class Variant:
    name: str       # T0, T1, X1, A1, a named context variant (contexts.variants), or T1.<chunker>
    base: str       # T0, T1, X1 or A1 (a named context variant's): how its texts are built
    chunker: str
    context: dict | None = None  # X1, A1 and the named ones: the context's settings


@dataclass(frozen=True)
class Retriever:
    name: str
    kind: str                  # dense, bm25, hybrid or reranked
    model: str | None = None   # dense and hybrid: the model slot
    preset: str | None = None  # hybrid: the fusion preset
    base: str | None = None    # reranked: the run it reranks


@dataclass(frozen=True)
class Condition:
    retriever: Retriever
    variant: Variant

    @property
    def name(self) -> str:
        return condition_name(self.retriever.name, self.variant.name)


def reranked_name(base: str) -> str:
    """The retriever that reranks the run of retriever `base`."""
    return f"r-{base}"


@dataclass(frozen=True)
class Plan(Layout):
    """Built complete by plan(), never changed after (its fields cannot be set). Every file of the
    run is named by its Layout methods, every condition by condition_name."""
    config: dict                      # completed, with every empty default resolved
    chunker: Chunker
    compared: tuple[Chunker, ...]
    variants: tuple[Variant, ...]     # the experiment's: config.variants, then X1, A1 and the named ones
    context_variants: dict[str, dict]  # X1, A1 and the named ones present: their settings
    models: dict[str, dict]           # slots, prefixes resolved
    dense: str                        # the dense model of the primary comparisons ("" without one)
    hybrids: dict[str, Retriever]
    search_depth: int                 # entries every deep run holds
    conditions: tuple[Condition, ...]
    compared_conditions: tuple[Condition, ...]
    primary: list[dict]
    fallback_used: bool
    language: dict                    # the corpus language and how it was found (languages.found_language)
    notes: tuple[str, ...]            # what the run should be told (stdout)

    condition_name = staticmethod(condition_name)
    reranked_name = staticmethod(reranked_name)

    # ---- names ---------------------------------------------------------------------------
    @property
    def results(self) -> str:
        return self.config["results"]

    @property
    def generated_sets(self) -> list[str]:
        """The question sets an LLM writes (questions.sets.<name>.generate)."""
        return [n for n, spec in self.config["questions"]["sets"].items() if spec["format"] == "generated"]

    @property
    def question_prompts(self) -> str:
        """The prompts of generated questions: the first generated set's, else a generated set's
        default (the preregistration prices generating questions with them)."""
        given = [self.config["questions"]["sets"][n]["generate"]["prompts"] for n in self.generated_sets]
        return given[0] if given else complete({"corpus": {"path": "-"}, "questions": {"sets": {
            "Q": {"generate": {"n": 1}}}}})["questions"]["sets"]["Q"]["generate"]["prompts"]

    @property
    def judged_sets(self) -> list[str]:
        """The question sets whose relevance the LLM judges (questions.sets.<name>.judge)."""
        return [n for n, spec in self.config["questions"]["sets"].items() if "judge" in spec]

    @property
    def generation_model(self) -> str:
        """The price row's model of contexts.llm, which writes generated questions ("" without a backend)."""
        llm = self.config["contexts"]["llm"]
        return priced_model(llm) if llm["backend"] else ""

    @property
    def paid_variants(self) -> list[str]:
        """The context variants an LLM writes, paid: A1 and the named ones with an `llm`."""
        return [v for v, settings in self.context_variants.items()
                if GIVEN not in settings and backend_spec(settings["backend"]).paid]

    def variant_workers(self) -> dict[str, int]:
        """The paid variants with documents in flight capped on their own (contexts.llm_workers,
        contexts.variants.<name>.llm_workers): their cap."""
        contexts = self.config["contexts"]
        caps = {PAID_VARIANT: contexts["llm_workers"],
                **{v: spec.get("llm_workers") for v, spec in contexts["variants"].items()}}
        return {v: caps[v] for v in self.paid_variants if caps[v]}

    @property
    def top_k(self) -> int:
        return self.config["search"]["top_k"]

    @property
    def chunkers(self) -> list[Chunker]:
        return [self.chunker, *self.compared]

    def chunker_named(self, name: str) -> Chunker:
        return next(c for c in self.chunkers if c.name == name)

    def chunker_tagged(self, tag: str) -> Chunker:
        """The chunker whose chunks file is chunks<tag>.jsonl."""
        return next(c for c in self.chunkers if c.tag == tag)

    def variant(self, name: str) -> Variant:
        return next(v for v in [*self.variants, *self.compared_variants] if v.name == name)

    @property
    def compared_variants(self) -> list[Variant]:
        return _compared_variants(self.compared)

    @property
    def variant_names(self) -> list[str]:
        return [v.name for v in self.variants]

    def models_for(self, variant: str) -> list[str]:
        """The model slots that embed a variant (a compared strategy's T1.<chunker> as T1)."""
        return _models_for(self.variant(variant).base, self.models)

    def retrievers_for(self, variant: str) -> list[Retriever]:
        return _retrievers(self.variant(variant).base, self.config, self.models, self.hybrids)

    @property
    def reranked_bases(self) -> list[str]:
        return _reranked_bases(self.config, self.hybrids)

    @property
    def retrievers(self) -> dict[str, Retriever]:
        """Every retriever of the run's conditions, by name."""
        return {c.retriever.name: c.retriever for c in [*self.conditions, *self.compared_conditions]}

    @property
    def condition_names(self) -> list[str]:
        return [c.name for c in self.conditions]

    @property
    def measures(self) -> dict:
        """The score section's cut-offs and extra measures, as score.json records them."""
        return metrics.configured(self.config["score"], self.top_k)

    def fusion_depth(self, preset: str) -> int:
        """Entries a hybrid reads from each list: the preset's depth, never fewer than search.top_k
        (so a hybrid run holds as many chunks as the runs it fuses)."""
        return _fusion_depth(self.config, preset)

    def fusion(self, hybrid: str) -> FusionPreset:
        """How the hybrid retriever `hybrid` fuses its lists."""
        preset = self.hybrids[hybrid].preset
        return FusionPreset.of(preset, self.config["fusion"]["presets"][preset], self.fusion_depth(preset))

    def setting(self, key: str):
        """The resolved setting at the dotted `key` (`pairs.alpha`, `bm25`): how the rules read
        settings."""
        value = self.config
        for part in key.split("."):
            value = value[part]
        return value

    def model_settings(self, name: str) -> dict:
        """What a model slot's vectors depend on (not which variants it embeds or its threads)."""
        return _vector_settings(self.models[name])

    def committed_settings(self) -> dict:
        """Every setting the run's figures depend on, by dotted key, defaults resolved: what a
        preregistration commits to beside its decision rule (a later change is a departure)."""
        def flat(node, prefix):
            for key, value in node.items():
                if isinstance(value, dict) and value:
                    yield from flat(value, f"{prefix}{key}.")
                else:
                    yield f"{prefix}{key}", value
        return {k: v for k, v in flat(self.config, "") if not any(fnmatch(k, p) for p in NOT_COMMITTED)}

    def comparisons(self) -> list[list[str]]:
        """The secondary comparisons: each variant pair, on every retriever both variants have."""
        pairs = []
        for a, b in self.config["pairs"]["variant_pairs"]:
            if a in self.variant_names and b in self.variant_names:
                theirs = [r.name for r in self.retrievers_for(b)]
                pairs += [[condition_name(r.name, a), condition_name(r.name, b)]
                          for r in self.retrievers_for(a) if r.name in theirs]
        return pairs

    def chunking_strategies(self) -> list[dict]:
        """The experiment's chunker (on T1) and each compared one (on T1.<chunker>), with their runs;
        none without T1 (then nothing is compared: chunking.compare needs T1)."""
        return [{"name": c.name, "variant": c.variant, "retrievers": [r.name for r in self.retrievers_for(c.variant)]}
                for c in self.chunkers if "T1" in self.variant_names]

    def embed_shards(self, sizes: dict[str, int]) -> list[list[str]]:
        """The documents of each embedding shard (kept documents' slug -> characters)."""
        return shards_of(sizes, self.config["chunking"]["paragraph"]["max_chars"], self.config["embed"]["shard_texts"])

    def question_shards(self, questions: int) -> int:
        """How many embedding jobs `questions` questions take: one per embed.shard_texts of them
        (a single one, and then no shard job, up to that many)."""
        return max(1, -(-questions // self.config["embed"]["shard_texts"]))

    # ---- files (the rest: Layout) -----------------------------------------------------------
    def chunks_file(self, chunker: str) -> str:
        return self.chunks(self.chunker_named(chunker).tag)

    def variant_chunks(self, variant: str) -> str:
        """The chunks file a variant's texts are built from."""
        return self.chunks_file(self.variant(variant).chunker)

    def final_outputs(self) -> list[str]:
        compared = [self.chunking_md, self.chunking_json, self.chunking_audit, self.plot("chunking")]
        return [self.score_md, self.score_json, self.score_table, self.qrels, self.pairs_md, self.pairs_json,
                self.plot("failure"), self.plot("pairs"), self.summary_page, *(compared if self.compared else [])]

    def intermediate_outputs(self) -> list[str]:
        names = self.variant_names
        out = [self.docs_all, self.docs, self.chunks(), self.questions, self.question_sets, self.gold(),
               self.plan_file, self.precision_file, self.embed_time, self.smallest_effect, self.preregistration,
               self.preregistration_md]
        out += [self.variant_file(v) for v in names]
        out += [self.vectors(v, m) for v in names for m in self.models_for(v)]
        out += [self.question_vectors(m) for m in self.models]
        out.append(self.tokens)
        out += [self.index_manifest(v) for v in names]
        for v in self.context_variants:
            out += [self.context_stats(v), self.context_lengths(v)]
        out += [self.context_estimate(v) for v in self.paid_variants]
        return out + [self.run_file(c.retriever.name, c.variant.name) for c in self.conditions]

    def wildcard_constraints(self) -> dict[str, str]:
        def alternatives(names):
            return "|".join(re.escape(n) for n in names) or "(?!)"
        return {"variant": alternatives([*self.variant_names, *(v.name for v in self.compared_variants)]),
                "tag": "(?:" + "|".join(["", *(re.escape(c.tag) for c in self.compared)]) + ")",
                "hybrid": alternatives(self.hybrids), "base": alternatives(self.reranked_bases),
                "cvar": alternatives([FREE_VARIANT, PAID_VARIANT, *self.config["contexts"]["variants"]]),
                "model": alternatives(self.models),
                "gset": alternatives(self.generated_sets), "jset": alternatives(self.judged_sets)}


def shards_of(sizes: dict[str, int], chars_per_text: int, shard_texts: int) -> list[list[str]]:
    """The documents of each embedding shard: consecutive documents (corpus order) up to about
    `shard_texts` texts, a document counting its characters / `chars_per_text` (at least one).
    An edited document moves no document before it to another shard."""
    shards: list[list[str]] = [[]]
    texts = 0
    for slug, chars in sizes.items():
        n = max(1, -(-chars // chars_per_text))
        if shards[-1] and texts + n > shard_texts:
            shards.append([])
            texts = 0
        shards[-1].append(slug)
        texts += n
    return shards


# ---- building the plan ---------------------------------------------------------------------

def check(config: dict, checkout: Path) -> None:
    """Every Problem `plan` finds, before the corpus is read (its language changes none of them)."""
    stated = config["corpus"]["language"]
    plan(merged(config, {"corpus": {"language": "und"}}) if stated == languages.AUTO else config, checkout)


def plan(config: dict, checkout: Path, letters: dict[str, int] | None = None,
         documents: dict[str, int] | None = None) -> Plan:
    """The plan of a completed config (schema.complete); Problem for a setting that names
    nothing of this run. `checkout`: the workflow's folder (results must stay out of it).
    `letters`: the kept documents' letters by script (selection.kept_corpus), from which
    corpus.language auto is found, and `documents`: how many are in each language
    (selection.kept_corpus); a stated language is kept."""
    config = copy.deepcopy(config)
    found = _corpus_language(config["corpus"], letters, documents)
    notes = _resolve_defaults(config)
    if found["found"] == languages.AUTO:
        notes.insert(0, languages.described(found))
    models = {name: _resolved_prefixes(name, slot) for name, slot in config["models"].items()}
    config["models"] = models
    _check_references(config, checkout)
    chunking, corpus = config["chunking"], config["corpus"]
    dense = config["pairs"]["dense"] or next(iter(models), "")
    name = chunking["chunker"] or ("given" if corpus["format"] == "chunked" else "paragraph")
    chunker = _chunker(name, "", "T1", chunking, models, dense)
    compared = [_chunker(c, f"-{c}", f"T1.{c}", chunking, models, dense) for c in chunking["compare"] if c != name]
    contexts = _context_variants(config)
    if PAID_VARIANT not in contexts:
        notes.append("A1 skipped: no LLM backend configured (contexts.llm.backend)")
    variants = [Variant(v, v, name) for v in config["variants"]]
    variants += [Variant(v, v if v in (FREE_VARIANT, PAID_VARIANT) else PAID_VARIANT, name, settings)
                 for v, settings in contexts.items()]
    hybrids = {}
    for m in models:
        for preset, suffix in [(config["fusion"]["default"], ""), *((p, f".{p}") for p in config["fusion"]["extra"])]:
            hybrids[f"h{m}{suffix}"] = Retriever(f"h{m}{suffix}", "hybrid", m, preset)
    conditions = [Condition(r, v) for v in variants for r in _retrievers(v.base, config, models, hybrids)]
    _check_models_of_chunkers([chunker, *compared], models)
    primary, fallback_used, primary_notes = _primary(config, conditions, dense, contexts)
    return Plan(
        config, chunker, tuple(compared), tuple(variants), contexts, models, dense, hybrids,
        search_depth=max([config["search"]["top_k"], config["rerank"]["top_n"] if config["rerank"]["enabled"] else 0]
                         + [_fusion_depth(config, h.preset) for h in hybrids.values()]),
        conditions=tuple(conditions),
        compared_conditions=tuple(Condition(r, v) for v in _compared_variants(compared)
                                  for r in _retrievers(v.base, config, models, hybrids)),
        primary=primary, fallback_used=fallback_used, language=found, notes=(*notes, *primary_notes))


def _compared_variants(compared) -> list[Variant]:
    return [Variant(c.variant, "T1", c.name) for c in compared]


def _models_for(base: str, models: dict[str, dict]) -> list[str]:
    return [m for m, slot in models.items() if base in slot["variants"]]


def _retrievers(base: str, config: dict, models: dict[str, dict], hybrids: dict[str, Retriever]) -> list[Retriever]:
    """The retrievers of a variant whose texts are built as `base`."""
    dense = _models_for(base, models)
    first = [Retriever(m, "dense", m) for m in dense] + [Retriever("bm25", "bm25")]
    first += [h for h in hybrids.values() if h.model in dense]
    names = {r.name for r in first}
    return first + [Retriever(reranked_name(b), "reranked", base=b)
                    for b in _reranked_bases(config, hybrids) if b in names]


def _reranked_bases(config: dict, hybrids: dict[str, Retriever]) -> list[str]:
    rerank = config["rerank"]
    return (rerank["of"] or list(hybrids)) if rerank["enabled"] else []


def _fusion_depth(config: dict, preset: str) -> int:
    return max(config["fusion"]["presets"][preset]["depth"], config["search"]["top_k"])


def _corpus_language(corpus: dict, letters: dict[str, int] | None, documents: dict[str, int] | None) -> dict:
    """corpus.language resolved (auto: found from `letters`), and how."""
    if corpus["language"] != languages.AUTO:
        return languages.stated_language(corpus["language"], letters)
    if letters is None:
        raise ValueError("corpus.language auto: plan() needs the kept documents' letters (selection.kept_corpus)")
    found = languages.found_language(letters, documents)
    corpus["language"] = found["language"]
    return found


def _resolve_defaults(config: dict) -> list[str]:
    """Every empty setting that stands for a default, resolved once for every reader."""
    lang, notes = config["corpus"]["language"], []
    config["contexts"]["extra_sentence"] = config["contexts"]["extra_sentence"] or languages.language(lang).extra_sentence()
    config["bm25"]["analyser"] = config["bm25"]["analyser"] or languages.language(lang).analyser
    config["report"]["language"] = config["report"]["language"] or languages.language(lang).report
    questions = config["questions"]
    for name, spec in questions["sets"].items():
        if spec["format"] == "generated":
            files = generated_files(config["results"], name)
            spec["path"] = spec["path"] or files["set"]
            spec["generate"]["review_file"] = spec["generate"]["review_file"] or files["review"]
    questions["groups"] = questions["groups"] or {name: [name] for name in questions["sets"]}
    if not config["score"]["main_group"]:
        config["score"]["main_group"] = next(iter(questions["groups"]))
        if len(questions["groups"]) > 1:
            notes.append(f"score.main_group: {config['score']['main_group']} (the first group: name it, so that "
                         f"key order cannot move it)")
    return notes


def _resolved_prefixes(name: str, slot: dict) -> dict:
    """A prefix left out (null) becomes the model's own; a model ctxret does not know needs both.
    A max_length beyond a known model's positions is a Problem."""
    positions = known_positions(slot)
    if positions is not None and slot["max_length"] > positions:
        raise Problem(f"models.{name}.max_length", f"{slot['max_length']} is above the {positions} positions of "
                                                   f"{slot['model']!r}; at most {positions}")
    if slot["query_prefix"] is not None and slot["passage_prefix"] is not None:
        return slot
    known = known_prefixes(slot)
    if known is None:
        raise Problem(f"models.{name}", f"ctxret does not know the prefixes model {slot['model']!r} was trained "
                                        f"with; state query_prefix and passage_prefix (\"\" for none)")
    given = (slot["query_prefix"], slot["passage_prefix"])
    return {**slot, **{k: v if g is None else g for k, g, v in zip(("query_prefix", "passage_prefix"), given, known)}}


def _chunker(name: str, tag: str, variant: str, chunking: dict, models: dict, dense: str) -> Chunker:
    key = CHUNKERS[name].model_key
    model = (chunking[name][key] or dense) if key else None
    settings = {**chunking.get(name, {}), **({"model": _vector_settings(models[model])} if model in models else {})}
    return Chunker(name, tag, variant, model, settings)


def _vector_settings(slot: dict) -> dict:
    return {k: v for k, v in slot.items() if k not in SLOT_ONLY}


def _context_variants(config: dict) -> dict[str, dict]:
    free = free_context(config["corpus"]["language"])
    return {**({FREE_VARIANT: free} if config["contexts"]["free"] else {}),
            **({PAID_VARIANT: config["contexts"]["llm"]} if config["contexts"]["llm"]["backend"] else {}),
            **{v: spec.get("llm", spec) for v, spec in config["contexts"]["variants"].items()}}


def given_variants(context_variants: dict[str, dict]) -> list[str]:
    """The context variants read from a file (contexts.variants.<name>.file)."""
    return [v for v, settings in context_variants.items() if GIVEN in settings]


def _check_references(config: dict, checkout: Path) -> None:
    """Every name the config uses refers to something of this run."""
    models, questions, corpus = config["models"], config["questions"], config["corpus"]
    for name in models:
        if f"h{name}" in models:
            raise Problem(f"models.h{name}", f"collides with the hybrid of model slot {name!r}")
    for name, spec in questions["sets"].items():
        if set_problem(spec, corpus):
            raise Problem(f"questions.sets.{name}", set_problem(spec, corpus))
        if spec["format"] == "generated" and not config["contexts"]["llm"]["backend"]:
            raise Problem(f"questions.sets.{name}.generate", "an LLM writes a generated set: set contexts.llm.backend")
        if "judge" in spec:
            _check_judge(name, spec["judge"], config)
    for key, sets in [*((f"questions.groups.{g}", s) for g, s in questions["groups"].items()),
                      ("questions.gap_sets", questions["gap_sets"])]:
        unknown = [s for s in sets if s not in questions["sets"]]
        if unknown:
            raise Problem(key, f"{unknown} are not question sets ({', '.join(questions['sets'])})")
    try:
        re.compile(questions["cluster_key"])
    except re.error as e:
        raise Problem("questions.cluster_key",
                      f"{questions['cluster_key']!r} is not a regular expression ({e})") from None
    main = config["score"]["main_group"]
    if main not in questions["groups"]:
        raise Problem("score.main_group", f"{main!r} is not a group ({', '.join(questions['groups'])})")
    pairs = config["pairs"]
    if pairs["dense"] and pairs["dense"] not in models:
        raise Problem("pairs.dense", f"{pairs['dense']!r} is not a model slot ({', '.join(models) or 'models is empty'})")
    if pairs["fallback_variant"] not in ("T0", "T1", FREE_VARIANT):
        raise Problem("pairs.fallback_variant",
                      f"{pairs['fallback_variant']!r} is not a variant that needs no LLM (T0, T1, X1)")
    presets = config["fusion"]["presets"]
    for key, preset in [("fusion.default", config["fusion"]["default"]),
                        *((f"fusion.extra.{i}", p) for i, p in enumerate(config["fusion"]["extra"]))]:
        if preset not in presets:
            raise Problem(key, f"{preset!r} is not a preset ({', '.join(presets)})")
    chunking = config["chunking"]
    if [c for c in chunking["compare"] if c != chunking["chunker"]] and "T1" not in config["variants"]:
        raise Problem("chunking.compare", "strategies are compared on T1, which variants lacks")
    for key, message in [*checks.corpus_problems(corpus),
                         *checks.place_problems(config["results"], config["store"], checkout),
                         *checks.input_problems(config["results"], config["store"], _inputs(config, checkout), checkout),
                         *checks.cutoff_problems(config["score"]["ks"], config["search"]["top_k"]),
                         *metrics.measure_problems(config["score"], config["search"]["top_k"]),
                         *checks.overlap_problems(chunking),
                         *checks.template_problems(chunking),
                         *checks.variant_pair_problems(config["pairs"]["variant_pairs"], ["T0", "T1", FREE_VARIANT,
                                                       PAID_VARIANT, *config["contexts"]["variants"],
                                                       *(f"T1.{c}" for c in chunking["compare"])]),
                         *checks.fusion_problems(presets)]:
        raise Problem(key, message)


def _check_judge(name: str, judge: dict, config: dict) -> None:
    key, backend = f"questions.sets.{name}.judge", config["contexts"]["llm"]["backend"]
    if not backend:
        raise Problem(key, "an LLM judges the set's relevance: set contexts.llm.backend")
    if judge["depth"] > config["search"]["top_k"]:
        raise Problem(f"{key}.depth", f"{judge['depth']} is beyond search.top_k ({config['search']['top_k']}): "
                                      f"the runs hold that many chunks a question")


def _inputs(config: dict, checkout: Path) -> dict[str, str]:
    """The files and folders the run reads (a generated set aside), by the key that names them (a relative prompt or
    prices file not in the working directory is the checkout's, as the workflow reads it)."""
    corpus, contexts = config["corpus"], config["contexts"]
    found = {"corpus.path": corpus["path"], "corpus.slugs": corpus["slugs"],
             **{f"questions.sets.{name}": spec.get("path", "") for name, spec in config["questions"]["sets"].items()
                if spec["format"] != "generated"},  # the workflow writes a generated set
             **{f"contexts.{key}": contexts[key] if Path(contexts[key]).is_absolute() or Path(contexts[key]).exists()
                else str(checkout / contexts[key]) for key in ("prompt", "prices")},
             **{f"contexts.variants.{name}.{GIVEN}": spec[GIVEN] for name, spec in contexts["variants"].items()
                if GIVEN in spec}}
    return {key: path for key, path in found.items() if path}


def bm25_primaries(specs: list[dict]) -> list[dict]:
    """The primaries with each dense retriever ({dense}, h{dense}) replaced by BM25, once each."""
    out = []
    for spec in specs:
        bm25 = {**spec, **{s: re.sub(r"^h?\{dense\}:", "bm25:", spec[s]) for s in "ab"}}
        if bm25 not in out:
            out.append(bm25)
    return out


def _check_models_of_chunkers(chunkers: list[Chunker], models: dict[str, dict]) -> None:
    for c in chunkers:
        if c.model is not None and c.model not in models:
            raise Problem(f"chunking.{c.name}.{CHUNKERS[c.name].model_key}",
                          f"{c.model!r} is not a model slot ({', '.join(models) or 'models is empty'})")


def _primary(config: dict, conditions: list[Condition], dense: str,
             context_variants: dict[str, dict]) -> tuple[list[dict], bool, list[str]]:
    """The primary comparisons, resolved against this run's conditions, whether the fallback
    variant stands in, and what the run should be told of them; rerank.of checked too."""
    notes = []
    bases = {c.retriever.name for c in conditions if c.retriever.kind != "reranked"}
    unknown = [r for r in config["rerank"]["of"] if r not in bases]
    if config["rerank"]["enabled"] and unknown:
        raise Problem("rerank.of", f"{unknown} are not runs ({', '.join(sorted(bases))})")
    specs, fallback = config["pairs"]["primary"], config["pairs"]["fallback_variant"]
    defaults = specs == schema_default("pairs", "primary")
    if defaults and not dense:
        specs = bm25_primaries(specs)
        notes.append(f"pairs.primary: no dense model (models is empty), so the default primary comparisons are "
                       f"BM25's: {', '.join(s['a'] + ' vs ' + s['b'] for s in specs)}")
    for i, spec in enumerate(specs):
        if not dense and "{dense}" in spec["a"] + spec["b"]:
            raise Problem(f"pairs.primary.{i}", "{dense} needs a dense model, and models is empty; "
                                                "declare primaries such as {a: 'bm25:T1', b: 'bm25:A1'}")
    main, names = config["score"]["main_group"], [c.name for c in conditions]
    primary, used = resolve_primary([{**s, "group": s["group"] or main} for s in specs], names, dense, fallback,
                                    list(config["questions"]["groups"]),
                                    lambda i, message: Problem(f"pairs.primary.{i}", message), skip_missing=defaults)
    if defaults and len(primary) < len(specs):
        notes.append(f"pairs.primary: {len(specs) - len(primary)} of the default primary comparisons left out: "
                       f"this run has neither A1 nor the fallback {fallback} for them"
                       + ("" if primary else "; no primary comparison, so no verdict (declare pairs.primary for one)"))
    for pr in primary if PAID_VARIANT in context_variants else []:
        missing = [c for c in (planning_side(pr[s], PAID_VARIANT, fallback) for s in "ab") if c not in names]
        if missing:  # the preregistration says so too
            notes.append(f"pairs.primary: {pr['a']} vs {pr['b']}: no power estimate before paying, as this run "
                           f"has no {missing[0]} (add {fallback} to that model's variants)")
    return primary, used, notes
