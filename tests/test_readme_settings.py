"""Every setting the documentation documents (the pages under docs/ the README links to), given a
wrong value (written from those pages, not from the existing bad-input cases), and each found on
its page. Each case must stop with one line naming the config file, its line
and the key, with no traceback and nothing written. A setting checked beyond the schema (by the
workflow while it is read), or by a kind of schema rule no other dry run shows (a rule that
depends on the backend, a question set's own settings, an enum with an empty choice, a boolean),
is a Snakemake dry run of the mini experiment (prepared once; each case writes only its config);
the rest go through the schema check the workflow calls first (`settings.complete`), without a
Snakemake process (the test suite's time is short: a dry run costs seconds)."""
from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml

from ctxret.errors import InputError
from ctxret.settings import complete, read_config
from bad_inputs import Experiment

# (documented setting, wrong value, the line's pattern after `error: <config>:<line>: `)
DRY_RUNS = [
    ("chunking.fixed", {"size": 200, "overlap": 200},
     r"chunking.fixed.overlap: 200 is not below chunking.fixed.size \(200\): each chunk would repeat all of the "
     r"previous one; lower the overlap"),
    ("chunking.recursive", {"tokens": 64, "overlap": 64},
     r"chunking.recursive.overlap: 64 is not below chunking.recursive.tokens \(64\)"),
    ("questions.sets.H", {"format": "jsonl", "path": "{questions}/questions-h.jsonl", "sample": -1},
     r"questions.sets.H.*-1 is less than the minimum of 0"),
    ("report.language", "fr", r"report.language: 'fr' is not one of \['', 'ko', 'en'\]"),
    ("models.e5.precision", "fp8", r"models.e5.precision: 'fp8' is not one of"),
    ("offline", "yes", r"offline: 'yes' is not of type 'boolean'"),
    ("score.measures", ["F@5"], r"score.measures.0: 'F@5' is not a measure: write <family>@<k>"),
]


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    return Experiment(tmp_path_factory.mktemp("readme-settings"))


@pytest.mark.parametrize("key, value, message", DRY_RUNS, ids=[f"{k}={v!r}" for k, v, _ in DRY_RUNS])
def test_a_documented_setting_with_a_wrong_value_stops_the_dry_run_with_one_line(experiment, key, value, message):
    x, base = experiment, copy.deepcopy(experiment.config)
    value = yaml.safe_load(yaml.safe_dump(value).replace("{questions}", str(x.qdir)))
    try:
        x.set(key, value)
        proc = x.run("-n")
    finally:
        x.config = base
    output = proc.stdout + proc.stderr
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert proc.returncode == 1, output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    assert len(errors) == 1, output[-3000:]
    assert re.match(rf"error: {re.escape(str(x.config_path))}:\d+: {message}", errors[0]), errors[0]
    assert not (x.tmp / "results").exists()


SCHEMA_ONLY = [
    ("chunking.chunker", "sentences", r"chunking.chunker: 'sentences' is not one of"),
    ("chunking.compare", ["fixd"], r"chunking.compare.0: 'fixd' is not one of"),
    ("chunking.semantic", {"percentile": 100}, r"chunking.semantic.percentile: 100 is greater than or equal to"),
    ("corpus.exclude_tags", "RAG", r"corpus.exclude_tags: 'RAG' is not of type 'array'"),
    ("contexts.seconds_per_call", 0, r"contexts.seconds_per_call: 0 is less than or equal to the minimum of 0"),
    ("bm25.analyser", "nori", r"bm25.analyser: 'nori' is not one of"),
    ("corpus.min_chars", -1, r"corpus.min_chars: -1 is less than the minimum of 0"),
    ("corpus.sample", "all", r"corpus.sample: 'all' is not of type 'integer'"),
    ("score.doc_k", 0, r"score.doc_k: 0 is less than the minimum of 1"),
    ("score.per_set", "yes", r"score.per_set: 'yes' is not of type 'boolean'"),
    ("pairs.power", 1.2, r"pairs.power: 1.2 is greater than or equal to the maximum of 1"),
    ("pairs.planning_diffs", [0.03, 0], r"pairs.planning_diffs.1: 0 is less than or equal to the minimum of 0"),
    ("contexts.free", "no", r"contexts.free: 'no' is not of type 'boolean'"),
    ("contexts.expected_output_tokens", 0, r"contexts.expected_output_tokens: 0 is less than the minimum of 1"),
    ("embed.shard_texts", 0, r"embed.shard_texts: 0 is less than the minimum of 1"),
    ("search.recall_sample", 0, r"search.recall_sample: 0 is less than the minimum of 1"),
    ("models.e5.threads", 0, r"models.e5.threads: 0 is less than the minimum of 1"),
    ("rerank.enabled", "yes", r"rerank.enabled: 'yes' is not of type 'boolean'"),
    ("chunking.max_chars", 800, r"chunking.max_chars: moved to chunking.paragraph.max_chars"),
]


@pytest.mark.parametrize("key, value, message", SCHEMA_ONLY, ids=[f"{k}={v!r}" for k, v, _ in SCHEMA_ONLY])
def test_a_documented_setting_with_a_wrong_value_fails_the_schema_check_with_file_line_and_key(
        experiment, key, value, message):
    x, base = experiment, copy.deepcopy(experiment.config)
    try:
        x.set(key, value)
        x.config_path.write_text(yaml.safe_dump(x.config, allow_unicode=True), encoding="utf-8")
    finally:
        x.config = base
    with pytest.raises(InputError) as e:
        complete(read_config(str(x.config_path)), (str(x.config_path),))
    assert re.fullmatch(rf"{re.escape(str(x.config_path))}:\d+: {message}.*", str(e.value)), str(e.value)


DOCS = Path(__file__).resolve().parents[1] / "docs"
# Where each setting above is documented, and how the page writes it.
DOCUMENTED = {
    "chunking.fixed": ("experiments.md", "`fixed: {size: 200, overlap: 50}`"),
    "chunking.recursive": ("experiments.md", "`recursive: {tokens: 512, overlap: 64, tokenizer: <model slot>}`"),
    "questions.sets.H": ("experiments.md", "`sample: N` keeps a seeded sample"),
    "report.language": ("statistics.md", "`report.language: ko | en`"),
    "models.e5.precision": ("models.md", "**Precision** (`precision`"),
    "offline": ("models.md", "`offline: true`"),
    "score.measures": ("experiments.md", "`score.measures`"),
    "chunking.chunker": ("experiments.md", "`chunking.chunker`"),
    "chunking.compare": ("experiments.md", "`chunking.compare`"),
    "chunking.semantic": ("experiments.md", "`semantic: {model: <model slot>, percentile: 90}`"),
    "corpus.exclude_tags": ("experiments.md", "`corpus.exclude_tags`"),
    "contexts.seconds_per_call": ("statistics.md", "`contexts.seconds_per_call`"),
    "bm25.analyser": ("analysis.md", "`bm25.analyser`"),
    "corpus.min_chars": ("experiments.md", "`corpus.min_chars`"),
    "corpus.sample": ("experiments.md", "`corpus.sample: N`"),
    "score.doc_k": ("experiments.md", "`score.doc_k`"),
    "score.per_set": ("statistics.md", "`score.per_set`"),
    "pairs.power": ("statistics.md", "`pairs.power`"),
    "pairs.planning_diffs": ("statistics.md", "`pairs.planning_diffs`"),
    "contexts.free": ("what-runs.md", "`contexts: {free: false}`"),
    "contexts.expected_output_tokens": ("contexts.md", "`contexts.expected_output_tokens`"),
    "embed.shard_texts": ("slurm.md", "`embed.shard_texts`"),
    "search.recall_sample": ("search.md", "`search.recall_sample`"),
    "models.e5.threads": ("models.md", "`batch_size`, `threads`"),
    "rerank.enabled": ("search.md", "`rerank.enabled`"),
    "chunking.max_chars": ("experiments.md", "`chunking.paragraph.max_chars`"),  # its new name
}


def test_every_setting_checked_here_is_written_on_its_documentation_page():
    assert set(DOCUMENTED) == {key for key, _, _ in DRY_RUNS + SCHEMA_ONLY}
    missing = [f"{key}: {term} not in docs/{page}" for key, (page, term) in DOCUMENTED.items()
               if term not in (DOCS / page).read_text(encoding="utf-8")]
    assert not missing, missing


def _written(x: Experiment, **sections) -> str:
    """The experiment's config with `sections` replaced, written; its path."""
    x.config_path.write_text(yaml.safe_dump({**x.config, **sections}, allow_unicode=True), encoding="utf-8")
    return str(x.config_path)


def test_a_default_model_slot_given_one_key_takes_every_other_from_the_default_slot(experiment):
    """models: {e5: {precision: bf16}} is the default e5 slot at bf16, nothing restated."""
    path = _written(experiment, models={"e5": {"precision": "bf16"}})
    ours = complete(read_config(path), (path,))["models"]
    default = complete({k: v for k, v in read_config(path).items() if k != "models"})["models"]
    assert list(ours) == ["e5"] and ours["e5"] == {**default["e5"], "precision": "bf16"}
    path = _written(experiment, models={"e5": {"model": "BAAI/bge-m3", "backend": "flagembedding"}})
    other = complete(read_config(path), (path,))["models"]["e5"]   # another model: none of the default's prefixes
    assert (other["query_prefix"], other["passage_prefix"], other["variants"]) == (None, None, default["e5"]["variants"])
    path = _written(experiment, models={})
    assert complete(read_config(path), (path,))["models"] == {}     # BM25 only


def test_a_new_model_slot_without_its_backend_is_one_line_naming_file_line_and_key(experiment):
    path = _written(experiment, models={"e5": {"precision": "bf16"}, "m3": {"model": "BAAI/bge-m3"}})
    with pytest.raises(InputError) as e:
        complete(read_config(path), (path,))
    assert re.fullmatch(rf"{re.escape(path)}:\d+: models.m3: backend missing: a new model slot names its backend "
                        rf"and model .*", str(e.value)), str(e.value)


def _settings_check(x: Experiment, path: str):
    """`python -m ctxret.settings FILE` where the workflow runs (results and store are relative)."""
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "ctxret.settings", path], capture_output=True, text=True,
                          timeout=120, cwd=x.tmp)


def test_the_settings_check_and_the_workflow_agree_on_a_bm25_only_run(experiment):
    """`python -m ctxret.settings` checks what the workflow checks while it is read: a BM25-only
    config without a pairs line passes both; one declaring {dense} primaries fails both, same line."""
    x, base = experiment, copy.deepcopy(experiment.config)
    try:
        x.config["models"] = {}
        ok = _settings_check(x, _written(x))
        assert (ok.returncode, ok.stdout) == (0, f"{x.config_path}: ok\n"), ok.stderr
        x.config["pairs"] = {"primary": [{"a": "{dense}:T1", "b": "{dense}:X1"}]}
        checked, run = _settings_check(x, _written(x)), x.run("-n")
    finally:
        x.config = base
    line = f"error: {x.config_path}:"
    (said,) = [l for l in checked.stdout.splitlines() + checked.stderr.splitlines() if l.startswith("error:")]
    (stopped,) = [l for l in (run.stdout + run.stderr).splitlines() if l.startswith("error:")]
    assert checked.returncode == run.returncode == 1
    assert said == stopped and said.startswith(line) and "pairs.primary.0: {dense} needs a dense model" in said
