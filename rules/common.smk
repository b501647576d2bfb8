import os
from pathlib import Path

import sys

# The package of this checkout, here and in every job
SCRIPTS = str(Path(workflow.basedir) / "scripts")
sys.path.insert(0, SCRIPTS)
from ctxret.runtime.stage_runner import jobs_import_from  # noqa: E402

jobs_import_from(SCRIPTS)
from ctxret.config import checks, preflight  # noqa: E402 (the package lives under scripts/)
from ctxret.runtime import run_lock, output_records  # noqa: E402 (the package lives under scripts/)
from ctxret import secrets  # noqa: E402 (the package lives under scripts/)
from ctxret.runtime import ancient_edges  # noqa: E402
from ctxret.retrieval.bm25 import RULE as BM25_RULE  # noqa: E402
from ctxret.errors import InputError  # noqa: E402
from ctxret.contexts.llm import backend_spec  # noqa: E402
from ctxret.contexts.prices import load_prices, model_prices  # noqa: E402
from ctxret.importers import corpus_files, set_files  # noqa: E402
from ctxret.config.plan import Problem, check, given_variants, plan  # noqa: E402
from ctxret.presentation.pages import report_title, warning_lines  # noqa: E402
from ctxret.presentation.wording import wording  # noqa: E402
from ctxret.yaml_lines import key_line, where  # noqa: E402
from ctxret.questions.sets import (  # noqa: E402
    cluster_key_warning,
    fingerprint,
    generation_problem,
    generation_settings,
    read_question_sets,
)
from ctxret.importers.selection import kept_corpus  # noqa: E402
from ctxret.config.schema import complete, merged, read_config  # noqa: E402


def fail(error):
    """Stop while the workflow is read, with one line (no traceback, no key)."""
    sys.exit(secrets.redact(f"error: {error}"))


# every job examined for what it needs, also those behind an edge whose files are all ancient()
try:
    ancient_edges.mask_only_followed_edges()
except RuntimeError as e:
    fail(e)


def workflow_file(path):
    """A file the config names: as given, or (relative and not in the working directory) the
    workflow's own copy, so that the defaults work from any directory."""
    return path if Path(path).is_absolute() or Path(path).exists() else str(Path(workflow.basedir) / path)


def gold_problems(lines):
    """One line, or a line per question after a heading: every gold not in the corpus."""
    if len(lines) == 1:
        return lines[0]
    return f"{len(lines)} questions' gold is not in the corpus:\n" + "\n".join(f"  {line}" for line in lines)


def warn_cluster_key():
    """One line, as the questions are read, when questions.cluster_key matches no question's id
    (every question then a bootstrap cluster of its own; pairs.md says it again)."""
    key = ["questions", "cluster_key"]
    warning = cluster_key_warning(QUESTIONS, P.setting("questions.cluster_key"))
    place = where(CONFIG_FILES, key) if any(key_line(f, key) for f in CONFIG_FILES) else "the default"
    for line in warning_lines([warning] if warning else [], wording("en")):
        print(f"warning: {place}: {line}", file=sys.stderr)


# The demo experiment when no --configfile is given (--config values still apply); a user's
# file stands alone: only the schema's defaults fill it in, nothing of the demo's.
# `make generate-questions` (every job of it too): the rules that write generated question sets
GENERATING = os.environ.get("CTXRET_GENERATE_QUESTIONS") == "1"
CONFIG_FILES = tuple(map(str, workflow.overwrite_configfiles)) or ("config/config.yaml",)
try:
    if not workflow.overwrite_configfiles:
        config.update(merged(read_config(workflow_file(CONFIG_FILES[0])), dict(config)))
    COMPLETED = complete(config, CONFIG_FILES)
    secrets.keep_keys_of(COMPLETED)
    check(COMPLETED, Path(workflow.basedir))  # every setting, before the corpus is read (and the store written)
    # once per run (jobs skip it); a live run there: its lock names it when this one starts
    if workflow.is_main_process and not run_lock.held(COMPLETED["results"]):
        for key, message in checks.other_corpus_problems(COMPLETED["results"], COMPLETED["corpus"]):
            raise Problem(key, message)
    KEPT = kept_corpus(COMPLETED["corpus"], COMPLETED["store"])
    P = plan(COMPLETED, Path(workflow.basedir), KEPT.letters, KEPT.documents)
    KEPT_SIZES = KEPT.sizes
    KEPT_SLUGS, EMBED_SHARDS = list(KEPT_SIZES), P.embed_shards(KEPT_SIZES)
    QUESTION_SETS, CORPUS = P.config["questions"]["sets"], P.config["corpus"]
    # make generate-questions reads no file of a set with n: auto: its n comes from the pilot the
    # questions rule's output gives (the questions rule would wait for the set it sizes)
    QUESTION_FILES = [
        p
        for spec in QUESTION_SETS.values()
        if not (GENERATING and spec.get("generate", {}).get("n") == "auto")
        for p in set_files(spec, CORPUS)
    ]
    # every set read (and so checked) once, kept in the store for the questions stage
    QUESTIONS, _, GOLD_PROBLEMS = read_question_sets(QUESTION_SETS, CORPUS, P.setting("store"))
    QUESTIONS_CONTENT = fingerprint(QUESTION_SETS, CORPUS, QUESTIONS)
    QUESTION_SHARDS = P.question_shards(len(QUESTIONS))
    PROMPT = workflow_file(P.config["contexts"]["prompt"])
    PRICES = workflow_file(P.config["contexts"]["prices"])
    if workflow.is_main_process:  # once per run (jobs skip it)
        if GOLD_PROBLEMS and P.setting("questions.strict"):  # else qcheck reports them
            raise InputError(gold_problems(GOLD_PROBLEMS))
        for note in P.notes:  # the language found, A1 skipped: on stdout, where the run's answer is
            print(note)
        if not GENERATING and not Path(P.preregistration).exists():  # never written silently
            print(
                f"no preregistration yet ({P.preregistration_md} is not there): this run writes one from "
                f"the questions and settings as they are now; `make preregister` writes it again"
            )
        warn_cluster_key()
        for name in [] if GENERATING else P.generated_sets:
            problem = generation_problem(QUESTION_SETS[name], P.generated_record(name))
            if problem:
                raise Problem(f"questions.sets.{name}", problem)
        preflight.check_before_paying(P, PROMPT, PRICES)
except Problem as e:
    fail(e.located(CONFIG_FILES))
except InputError as e:
    fail(e)
config.clear()
config.update(P.config)  # every empty default resolved, for every reader
R = P.results
# What the reports say of the corpus (pairs.json carries it to the summary page), and their title
ABOUT_CORPUS = {"path": CORPUS["path"], "documents": len(KEPT_SLUGS), "language": P.language}
TITLE = report_title(P.setting("report.title"), ABOUT_CORPUS, P.setting("report.language"))


# Input and param functions of the rules, by what they give (a wildcard's records from the plan)
def chunker_precision(wildcards):
    """precision.json for a chunker that reads a model slot (its tokenizer or vectors), else nothing."""
    return [ancient(P.precision_file)] if P.chunker_tagged(wildcards.tag).model else []


def chunker_threads(wildcards):
    chunker = P.chunker_tagged(wildcards.tag)
    return P.models[chunker.model]["threads"] if chunker.model else 1


def chunker_name(wildcards):
    return P.chunker_tagged(wildcards.tag).name


def chunker_settings(wildcards):
    return P.chunker_tagged(wildcards.tag).settings


def chunker_slot(wildcards):
    return P.chunker_tagged(wildcards.tag).model or ""


def verbatim(key):
    """A text setting as a param function: given as a string, Snakemake would read its braces as
    wildcards (a T1 template's {title}, an extra sentence's {...})."""
    return lambda wildcards: P.setting(key)


def variant_chunks(wildcards):
    return P.variant_chunks(wildcards.variant)


def variant_contexts(wildcards):
    """A context variant's per-document records; nothing for T0 and T1."""
    return P.context_files(wildcards.variant, KEPT_SLUGS) if wildcards.variant in P.context_variants else []


def variant_base(wildcards):
    return P.variant(wildcards.variant).base


def variant_vectors(wildcards):
    return [P.vectors(wildcards.variant, m) for m in P.models_for(wildcards.variant)]


def variant_models(wildcards):
    return P.models_for(wildcards.variant)


def qdrant_path(wildcards):
    return P.qdrant_path(wildcards.variant)


def slot_settings(wildcards):
    return P.model_settings(wildcards.model)


def slot_flush_every(wildcards):
    return P.models[wildcards.model]["flush_every"]


def slot_threads(wildcards):
    return P.models[wildcards.model]["threads"]


def shard_number(wildcards):
    return int(wildcards.shard)


def shard_documents(wildcards):
    return EMBED_SHARDS[int(wildcards.shard)]


def vector_shards(wildcards):
    return [P.vectors_shard(wildcards.variant, wildcards.model, s) for s in range(len(EMBED_SHARDS))]


def context_llm(wildcards):
    return P.context_variants[wildcards.cvar]


def context_threads(wildcards):
    """The cores a paid variant's local server uses (llm.server_threads; a backend without that setting: none)."""
    return P.context_variants[wildcards.cvar].get("server_threads", 0)


def given_file(wildcards):
    """The file a named context variant's contexts are read from."""
    return P.context_variants[wildcards.cvar]["file"]


def given_fields(wildcards):
    return P.context_variants[wildcards.cvar]["fields"]


def given_position(wildcards):
    return P.context_variants[wildcards.cvar]["context_position"]


def context_files(wildcards):
    return P.context_files(wildcards.cvar, KEPT_SLUGS)


def context_estimate_of_paid(wildcards):
    """A paid variant's estimate, read beside its ledger; a free variant has none."""
    return [P.context_estimate(wildcards.cvar)] if wildcards.cvar in P.paid_variants else []


def free_runs():
    """The free conditions' deep runs, in plan order (their first search.top_k are the scored ones:
    search_cut also cuts the paid variants' runs; a reranked condition's run is its only one)."""
    return [
        (P.run_file if c.retriever.kind == "reranked" else P.deep_run)(c.retriever.name, c.variant.name)
        for c in P.conditions
        if c.variant.name not in P.paid_variants
    ]


def frozen(path):
    """`path` as ancient once a preregistration is written (rule preregister_effect)."""
    return ancient(path) if Path(P.preregistration).exists() else path


def generation_pilot(wildcards):
    """A generated set with n: auto reads the free pilot's questions needed (ancient: the figure is
    taken when the set is generated; the set's own questions never change it)."""
    auto = QUESTION_SETS[wildcards.gset]["generate"]["n"] == "auto"
    return {"effect": ancient(P.smallest_effect)} if auto else {}


def generation_spec(wildcards):
    """What a generated set's questions depend on (its review settings are not)."""
    return generation_settings(QUESTION_SETS[wildcards.gset])


def generation_prompts(wildcards):
    return workflow_file(QUESTION_SETS[wildcards.gset]["generate"]["prompts"])


def judge_spec(wildcards):
    return QUESTION_SETS[wildcards.jset]["judge"]


def judge_prompt(wildcards):
    return workflow_file(QUESTION_SETS[wildcards.jset]["judge"]["prompt"])


def review_file(wildcards):
    return QUESTION_SETS[wildcards.gset]["generate"]["review_file"]


def generation_prices():
    """The price row of contexts.llm's model, which prices generating questions in the
    preregistration (None without a backend)."""
    return model_prices(load_prices(PRICES), P.generation_model) if P.generation_model else None


def strict_check(wildcards):
    """questions.strict holds for the experiment's gold, not for a compared chunker's (tag set)."""
    return P.setting("questions.strict") and not wildcards.tag


def hybrid_dense_run(wildcards):
    return P.deep_run(P.hybrids[wildcards.hybrid].model, wildcards.variant)


def hybrid_fusion(wildcards):
    """The hybrid's FusionPreset record."""
    return P.fusion(wildcards.hybrid)


def embedding_params():
    """What an embedding job of the slot {model} needs: its settings and the flush size (the
    store's place reaches every job from the config, never as a param: ctxret.runtime.stage_runner)."""
    return dict(
        model_name="{model}",
        model=slot_settings,
        flush_every=slot_flush_every,
        offline=P.setting("offline"),
    )


def context_params(variant, llm, attempts, backoff_s):
    """What a context job needs: the variant, its backend's settings, the prompt's extra sentence
    and the retries."""
    return dict(
        variant=variant,
        llm=llm,
        extra_sentence=verbatim("contexts.extra_sentence"),
        attempts=attempts,
        backoff_s=backoff_s,
    )


def names_of(conditions):
    """[(retriever, variant)] of conditions: what score and pairs are given."""
    return [(c.retriever.name, c.variant.name) for c in conditions]


def hold_results():
    """Called as the run starts (`onstart`, never in a dry run): results/ is this run's until it ends."""
    global RUN_LOCK
    try:
        RUN_LOCK = run_lock.hold(R, workflow.basedir)  # held while this process lives
    except InputError as e:
        fail(e)


def check_built():
    """Called as a successful run ends (`onsuccess`): every file asked for or written exists and is
    complete, else one line each and a nonzero exit (the same command builds them)."""
    unbuilt = ancient_edges.unbuilt(workflow)
    for line in unbuilt:
        print(secrets.redact(f"error: {line}"), file=sys.stderr)
    if unbuilt:
        fail(f"{len(unbuilt)} file(s) asked for were not built; run the same command again")


def llm_workers():
    """The documents in flight during A1: the llm_workers resource (profiles/default: 4). Known to
    the run's main process only (a cluster job's own Snakemake is not given it): rule plan, which
    records it, is a local rule."""
    workers = getattr(workflow.global_resources.get("llm_workers"), "value", None)
    return int(workers) if workers is not None else 1


def register_variant_workers():
    """A paid variant capped on its own (contexts.llm_workers, contexts.variants.<name>.llm_workers)
    has a resource of its own, llm_workers_<name>, of which each of its document jobs takes one,
    beside one of llm_workers (--resources llm_workers_A2=2 on the command line wins)."""
    for variant, cap in P.variant_workers().items():
        if f"llm_workers_{variant}" not in workflow.global_resources:
            workflow.register_resource(f"llm_workers_{variant}", cap)


register_variant_workers()


def variant_worker_claims():
    """Each capped variant's resource: one for a document job of that variant, none for another's."""
    return {f"llm_workers_{v}": (lambda wildcards, v=v: int(wildcards.cvar == v)) for v in P.variant_workers()}


wildcard_constraints:
    **P.wildcard_constraints(),


def rerun_damaged():
    """A result changed or cut after the job that wrote it (its size or content no longer what that
    job recorded), or one the run names that has no record, is moved aside, one line each; those
    the run names (the manifest's) are its targets, so the job that wrote them runs again, and what
    reads them. Not while another run holds results/ (that run is writing them; this one will be
    refused)."""
    if not workflow.is_main_process or run_lock.held(R):
        return []
    named = {*P.intermediate_outputs(), *P.final_outputs()}
    damaged = output_records.set_aside_damaged(R, workflow.output_settings.dryrun, sorted(named))
    for _, line in damaged:
        print(line, file=sys.stderr)
    return [] if workflow.output_settings.dryrun else [p for p, _ in damaged if p in named]


DAMAGED = rerun_damaged()
