from pathlib import Path

import sys

# The package of this checkout, here and in every job
SCRIPTS = str(Path(workflow.basedir) / "scripts")
sys.path.insert(0, SCRIPTS)
from ctxret.stage import jobs_import_from  # noqa: E402

jobs_import_from(SCRIPTS)
from ctxret import guards, preflight, runlock, secrets, written  # noqa: E402 (the package lives under scripts/)
from ctxret import ancient_edges  # noqa: E402
from ctxret.bm25 import RULE as BM25_RULE  # noqa: E402
from ctxret.errors import InputError  # noqa: E402
from ctxret.llm import backend_spec  # noqa: E402
from ctxret.importers import corpus_files, set_files  # noqa: E402
from ctxret.plan import Problem, check, plan  # noqa: E402
from ctxret.presentation.pages import report_title  # noqa: E402
from ctxret.questionset import fingerprint, load_question_sets, question_count  # noqa: E402
from ctxret.selection import kept_corpus  # noqa: E402
from ctxret.schema import complete, merged, read_config  # noqa: E402


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


# The demo experiment when no --configfile is given (--config values still apply); a user's
# file stands alone: only the schema's defaults fill it in, nothing of the demo's.
CONFIG_FILES = tuple(map(str, workflow.overwrite_configfiles)) or ("config/config.yaml",)
try:
    if not workflow.overwrite_configfiles:
        config.update(merged(read_config(workflow_file(CONFIG_FILES[0])), dict(config)))
    COMPLETED = complete(config, CONFIG_FILES)
    secrets.keep_keys_of(COMPLETED)
    check(COMPLETED, Path(workflow.basedir))  # every setting, before the corpus is read (and the store written)
    # once per run (jobs skip it); a live run there: its lock names it when this one starts
    if workflow.is_main_process and not runlock.held(COMPLETED["results"]):
        for key, message in guards.other_corpus_problems(COMPLETED["results"], COMPLETED["corpus"]):
            raise Problem(key, message)
    KEPT = kept_corpus(COMPLETED["corpus"], COMPLETED["store"])
    P = plan(COMPLETED, Path(workflow.basedir), KEPT.letters)
    KEPT_SIZES = KEPT.sizes
    KEPT_SLUGS, EMBED_SHARDS = list(KEPT_SIZES), P.embed_shards(KEPT_SIZES)
    QUESTION_SETS, CORPUS = P.config["questions"]["sets"], P.config["corpus"]
    QUESTION_FILES = [p for spec in QUESTION_SETS.values() for p in set_files(spec, CORPUS)]
    QUESTIONS_CONTENT = fingerprint(QUESTION_SETS, CORPUS)  # checks every JSONL set
    QUESTION_SHARDS = P.question_shards(question_count(QUESTION_SETS, CORPUS, QUESTIONS_CONTENT, P.config["store"]))
    PROMPT = workflow_file(P.config["contexts"]["prompt"])
    PRICES = workflow_file(P.config["contexts"]["prices"])
    if workflow.is_main_process:  # once per run (jobs skip it)
        for note in P.notes:
            print(note, file=sys.stderr)
        load_question_sets({n: s for n, s in QUESTION_SETS.items() if s["format"] != "jsonl"}, CORPUS)
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
TITLE = report_title(config["report"]["title"], ABOUT_CORPUS, config["report"]["language"])


def embedding_params():
    """What an embedding job of the slot {model} needs: its settings and the flush size (the
    store's place reaches every job from the config, never as a param: ctxret.stage)."""
    return dict(
        model_name="{model}",
        model=lambda wc: P.model_settings(wc.model),
        flush_every=lambda wc: P.models[wc.model]["flush_every"],
        offline=config["offline"],
    )


def context_params(variant, llm, attempts, backoff_s):
    """What a context job needs: the variant, its backend's settings, the prompt's extra sentence
    and the retries."""
    extra = config["contexts"]["extra_sentence"]
    return dict(variant=variant, llm=llm, extra_sentence=extra, attempts=attempts, backoff_s=backoff_s)


def names_of(conditions):
    """[(retriever, variant)] of conditions: what score and pairs are given."""
    return [(c.retriever.name, c.variant.name) for c in conditions]


def hold_results():
    """Called as the run starts (`onstart`, never in a dry run): results/ is this run's until it ends."""
    global RUN_LOCK
    try:
        RUN_LOCK = runlock.hold(R, workflow.basedir)  # held while this process lives
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


wildcard_constraints:
    **P.wildcard_constraints(),


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
    named = {*P.intermediate_outputs(), *P.final_outputs()}
    return [] if workflow.output_settings.dryrun else [p for p, _ in damaged if p in named]


DAMAGED = rerun_damaged()
