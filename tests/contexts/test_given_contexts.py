"""Contexts made elsewhere (contexts.variants.<name>.file): read from JSON Lines or parquet, keyed by
document and chunk index or chunk id, checked like a paid reply, every chunk covered, and
embedded, searched and compared like A1, through real workflow runs on the mini corpus."""
import json
import re
import shutil
import unicodedata
from pathlib import Path

import pytest

from conftest import FAKE_CLAUDE, settings
from workflow import ROOT, claude_calls, claude_env, mini_config, snakemake

from ctxret.config.plan import plan
from ctxret.config.preflight import kept_chunks
from ctxret.config.schema import complete, read_config
from ctxret.contexts.given import read_given, separated
from ctxret.contexts.replies import ReplyChecks
from ctxret.errors import InputError
from ctxret.importers.selection import kept_corpus
from ctxret.text.chunk_text import with_context

CHECKS = ReplyChecks.of(settings()["contexts"]["reply"])
FIELDS = {"doc": "doc", "chunk": "chunk", "context": "context"}
T1 = settings()["chunking"]["t1_template"]


def run_chunks(tmp: Path) -> list[dict]:
    """The mini corpus's chunks, made by a run of the chunks alone."""
    snakemake(mini_config(tmp), str(tmp / "results" / "chunks.jsonl"))
    return [json.loads(l) for l in (tmp / "results" / "chunks.jsonl").read_text().splitlines()]


def given_records(tmp: Path) -> list[dict]:
    """A record per chunk of the mini corpus: even chunks by index, odd ones by chunk id."""
    chunks = run_chunks(tmp)
    index, out = {}, []
    for c in chunks:
        i = index[c["doc"]] = index.get(c["doc"], -1) + 1
        out.append({"doc": c["doc"], "chunk": i if i % 2 == 0 else c["name"],
                    "context": f"{c['title']} 문서의 {c['section'] or '도입'} 부분에서 가져온 문단이다."})
    return out


def write_records(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def parse_time_chunks(config: Path) -> list[dict]:
    """The chunks the workflow's parse cuts to check a context file, from the config as the
    workflow completes and plans it (rules/common.smk)."""
    completed = complete(read_config(str(config)), (str(config),))
    found = kept_corpus(completed["corpus"], completed["store"])
    p = plan(completed, ROOT, found.letters, found.documents)
    return kept_chunks(p.config["corpus"], p.setting("store"), p.chunker)


def given_config(tmp: Path, path: Path, given: dict | None = None, **contexts):
    return mini_config(tmp, contexts={"variants": {"G1": {"file": str(path), **(given or {})}}, **contexts},
                       pairs={"resamples": 1000, "variant_pairs": [["T1", "G1"], ["X1", "G1"]],
                              "primary": [{"a": "{dense}:T1", "b": "{dense}:G1"}]})


def test_a_file_variant_is_embedded_searched_and_compared_with_t1(tmp_path):
    path = write_records(tmp_path / "g1.jsonl", given_records(tmp_path))
    config = given_config(tmp_path, path)
    snakemake(config)
    results = tmp_path / "results"
    # the parse checked the file against the very chunks the chunks job wrote, and remembers it covers them
    assert parse_time_chunks(config) == [json.loads(l) for l in (results / "chunks.jsonl").read_text().splitlines()]
    assert len(list((tmp_path / "store" / "given-covered").rglob("*.json"))) == 1
    texts = [json.loads(l)["text"] for l in (results / "var-G1.jsonl").read_text().splitlines()]
    assert texts[0].startswith("카프카 컨슈머 지연 줄이기 문서의 도입 부분에서 가져온 문단이다.\n\n")
    comparisons = json.loads((results / "pairs.json").read_text())["comparisons"]
    assert {(c["a"], c["b"]) for c in comparisons if c["role"] == "primary"} == {("e5:T1", "e5:G1")}
    assert {(c["a"], c["b"]) for c in comparisons} == {
        (f"{r}:{a}", f"{r}:G1") for r in ("e5", "bm25", "he5") for a in ("T1", "X1")}
    assert "| e5:T1 | e5:G1 |" in (results / "pairs.md").read_text()
    ledger = json.loads((results / "ctx" / "G1" / "stats.json").read_text())
    assert (ledger["results"], ledger["cost_usd"]) == (len(texts), 0.0)


def test_a_file_missing_one_chunk_stops_the_run_naming_it_before_any_job(tmp_path):
    records = given_records(tmp_path)
    shutil.rmtree(tmp_path / "results")   # a first run: no docs.jsonl, no chunks.jsonl yet
    path = write_records(tmp_path / "g1.jsonl", records[:-1])
    llm = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE), "model": "opus", "effort": "high"}
    proc = snakemake(given_config(tmp_path, path, llm=llm), check=False, env=claude_env(tmp_path))
    assert proc.returncode != 0
    errors = [l for l in proc.stderr.splitlines() if l.startswith("error:")]
    assert errors == [f"error: {path}: no context for 1 of 6 chunks: redis-ttl chunk 2 (redis-ttl#3) (a record per "
                      f"chunk: its document id, its chunk index from 0 or chunk id, its context)"], proc.stderr
    assert "Traceback" not in proc.stderr and "Building DAG" not in proc.stdout + proc.stderr
    assert not [p for p in (tmp_path / "results").rglob("*") if p.is_file()]   # no job ran: not prep, not chunks
    assert claude_calls(tmp_path) == 0


def test_a_bad_record_stops_the_run_naming_its_line_before_any_job(tmp_path):
    records = given_records(tmp_path)
    refused = {**records[2], "context": "I'm sorry, I cannot help with that."}
    path = write_records(tmp_path / "g1.jsonl", [*records[:2], refused, *records[3:]])
    proc = snakemake(given_config(tmp_path, path), "-n", check=False)
    assert proc.returncode != 0
    assert f"error: {path}:3: the context fails the reply checks (refusal: " in proc.stderr
    assert "Building DAG" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("record, problem", [
    ({"doc": "a", "context": "x"}, "no field 'chunk'"),
    ({"doc": "a", "chunk": -1, "context": "x"}, "field 'chunk' must be a chunk index"),
    ({"doc": "a", "chunk": 0, "context": "x\x07"}, "control_chars: control character U+0007"),
    ({"doc": "a", "chunk": 0, "context": "x" * 2001}, "too_long"),
])
def test_each_bad_record_is_named_by_its_line(tmp_path, record, problem):
    path = write_records(tmp_path / "g.jsonl", [{"doc": "a", "chunk": 1, "context": "fine"}, record])
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}:2: .*{re.escape(problem)}"):
        read_given(str(path), FIELDS, CHECKS)


def test_parquet_with_its_own_field_names_and_a_chunk_named_twice(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet
    path = tmp_path / "g.parquet"
    pa.parquet.write_table(pa.table({"document": ["a", "a"], "idx": [0, 1], "ctx": ["first", " second "]}), path)
    fields = {"doc": "document", "chunk": "idx", "context": "ctx"}
    assert {k: g.text for k, g in read_given(str(path), fields, CHECKS).items()} == {("a", 0): "first",
                                                                                    ("a", 1): "second"}
    pa.parquet.write_table(pa.table({"document": ["a", "a"], "idx": [0, 0], "ctx": ["first", "again"]}), path)
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))} row 2: document 'a' chunk 0 has a context already"):
        read_given(str(path), fields, CHECKS)


def contextualised(tmp: Path, position: str) -> tuple[list[dict], list[dict], list[str]]:
    """(chunks, records, contexts): a record per chunk holding its contextualised text, the context
    before (prefix) or after (suffix) the chunk's text as a pipeline joins them, the chunk's line
    breaks rewritten in every other record (a pipeline that joined its lines)."""
    chunks, records, contexts = run_chunks(tmp), [], []
    for i, c in enumerate(chunks):
        context = f"{c['title']} 문서, {i}번째 문단의 문맥."
        text = c["text"] if i % 2 else " ".join(c["text"].split())
        records.append({"doc": c["doc"], "chunk": c["name"], "contextualized":
                        f"{context}\n\n{text}\n" if position == "prefix" else f"  {text}\n{context}"})
        contexts.append(context)
    return chunks, records, contexts


@pytest.mark.parametrize("position", ["prefix", "suffix"])
def test_contexts_are_separated_from_contextualised_chunk_texts(tmp_path, position):
    chunks, records, contexts = contextualised(tmp_path, position)
    path = write_records(tmp_path / "g1.jsonl", records)
    given = {"context_position": position, "fields": {"text": "contextualized"}}
    results = tmp_path / "results"
    snakemake(given_config(tmp_path, path, given), str(results / "var-G1.jsonl"))
    written = [json.loads(l) for p in sorted((results / "ctx" / "G1" / "docs").glob("*.jsonl"))
               for l in p.read_text().splitlines()]
    assert sorted(r["context"] for r in written) == sorted(contexts)
    texts = [json.loads(l)["text"] for l in (results / "var-G1.jsonl").read_text().splitlines()]
    assert texts == [with_context(x, c, T1) for x, c in zip(contexts, chunks)]   # the context before T1


def test_a_contextualised_text_without_its_chunks_text_stops_the_run_naming_its_line(tmp_path):
    chunks, records, _ = contextualised(tmp_path, "prefix")
    records[2] = {**records[2], "contextualized": records[2]["contextualized"].rstrip()[:-3]}   # its end cut
    records[4] = {**records[4], "contextualized": chunks[4]["text"]}   # no context: fails the reply checks
    path = write_records(tmp_path / "g1.jsonl", records)
    given = {"context_position": "prefix", "fields": {"text": "contextualized"}}
    proc = snakemake(given_config(tmp_path, path, given), check=False)
    errors = [l for l in proc.stderr.splitlines() if l.startswith("error:")]
    assert proc.returncode != 0 and errors == [
        f"error: {path}:3: field 'contextualized' does not end with the text of document {chunks[2]['doc']!r} "
        f"chunk 2 ({chunks[2]['name']}) (context_position prefix: the context, then the chunk's text, compared "
        f"with every run of whitespace as one)"], proc.stderr
    assert "Traceback" not in proc.stderr and not list((tmp_path / "results" / "ctx").glob("G1/docs/*.jsonl"))
    records[2] = contextualised(tmp_path / "again", "prefix")[1][2]
    write_records(path, records)
    proc = snakemake(given_config(tmp_path, path, given), check=False)
    assert f"error: {path}:5: the context fails the reply checks (empty: " in proc.stderr, proc.stderr


def test_contextualised_text_separated_word_by_word():
    chunk = "첫 줄\n둘째  줄"
    assert separated("문맥이다.\n\n첫 줄 둘째 줄\n", chunk, "prefix") == "문맥이다."
    assert separated("첫 줄\n\n둘째 줄 문맥이다.", chunk, "suffix") == "문맥이다."
    assert separated("문맥이다. 첫 줄 둘째", chunk, "prefix") is None
    assert separated("문맥이다. 첫 줄 둘째 줄a", chunk, "prefix") is None   # a word is a word, whole
    assert separated("첫 줄 둘째 줄", chunk, "prefix") == ""
    decomposed = unicodedata.normalize("NFD", "문맥. 첫 줄 둘째 줄")
    assert separated(decomposed, chunk, "prefix") == "문맥."
