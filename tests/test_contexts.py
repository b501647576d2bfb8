"""Contexts paid once, ever: the store, reruns, kills, failures, the ledger and the estimate."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from ctxret.importers.manifests import read_articles
from ctxret.chunks import chunk_corpus
from ctxret.contexts import ContextStore, document_contexts
from ctxret.ctxreport import context_lengths, hangul_share
from ctxret.errors import InputError
from ctxret.ledger import estimate, model_prices, summarize
from ctxret.llm import make_backend
from conftest import read_lines

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = (ROOT / "config" / "context-prompt.txt").read_text(encoding="utf-8")
EXTRA = "Answer in Korean, the language of the document."
PRICES = yaml.safe_load((ROOT / "config" / "prices.yaml").read_text(encoding="utf-8"))


def demo_corpus(limit=None):
    manifests = sorted((ROOT / "data" / "demo" / "articles").glob("*.json"))
    docs = [d for d in read_articles(manifests) if "RAG" not in d["tags"]][:limit]
    return docs, chunk_corpus(docs, {"max_chars": 800})


def contexts_for(docs, chunks, settings, store, attempts=2):
    """Run every document through the stage's core; (records, calls, from_store)."""
    backend = make_backend(settings)
    records, calls, hits = [], 0, 0
    for doc in docs:
        result = document_contexts(doc, [c for c in chunks if c["slug"] == doc["slug"]], backend,
                                   TEMPLATE, EXTRA, store, attempts, 0.0)
        assert not result.failed
        records += result.records
        calls += result.calls
        hits += result.from_store
    return records, calls, hits


def test_contexts_are_paid_once(fake_claude, tmp_path):
    settings, calls = fake_claude
    docs, chunks = demo_corpus(limit=2)
    store = ContextStore(str(tmp_path / "store"))
    first, n_first, _ = contexts_for(docs, chunks, settings, store)
    assert n_first == len(chunks) == len(calls())
    # a rerun (results/ deleted or not) asks nothing: everything comes from the store
    again, n_again, hits = contexts_for(docs, chunks, settings, store)
    assert (n_again, hits) == (0, len(chunks))
    assert [r["context"] for r in again] == [r["context"] for r in first]
    # every call ran in a fresh empty directory outside the work tree, the API key stripped
    for call in calls():
        assert not call["cwd"].startswith(str(ROOT)) and call["cwd_entries"] == []
        assert call["anthropic_api_key"] is False
        assert "<document>" in call["stdin"] and call["stdin"].endswith(EXTRA)


def test_editing_one_document_calls_only_its_changed_chunks(fake_claude, tmp_path):
    settings, calls = fake_claude
    docs, chunks = demo_corpus(limit=3)
    store = ContextStore(str(tmp_path / "store"))
    contexts_for(docs, chunks, settings, store)
    before = len(calls())
    # edit one paragraph of the second document: its chunks see a new document (the whole
    # document is part of every key), the other documents' chunks do not change
    edited = dict(docs[1], body=docs[1]["body"].replace("다.", "다!", 1))
    new_docs = [docs[0], edited, docs[2]]
    new_chunks = chunk_corpus(new_docs, {"max_chars": 800})
    _, n, hits = contexts_for(new_docs, new_chunks, settings, store)
    edited_chunks = sum(1 for c in new_chunks if c["slug"] == edited["slug"])
    assert n == edited_chunks == len(calls()) - before
    assert hits == len(new_chunks) - edited_chunks


def test_failures_are_retried_ledgered_and_finally_named(fake_claude, tmp_path, monkeypatch):
    settings, calls = fake_claude
    docs, chunks = demo_corpus(limit=1)
    doc_chunks = [c for c in chunks if c["slug"] == docs[0]["slug"]]
    store = ContextStore(str(tmp_path / "store"))
    # the first chunk fails twice (two attempts allowed): it is left without a context
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "is_error:1,rate_limit:1")
    result = document_contexts(docs[0], doc_chunks, make_backend(settings), TEMPLATE, EXTRA, store, 2, 0.0)
    assert result.failed == [doc_chunks[0]["chunk_id"]]
    assert len(result.records) == len(doc_chunks) - 1
    # a rerun calls only that chunk, and its answer keeps the discarded attempts
    monkeypatch.delenv("FAKE_CLAUDE_FAIL")
    before = len(calls())
    again = document_contexts(docs[0], doc_chunks, make_backend(settings), TEMPLATE, EXTRA, store, 2, 0.0)
    assert len(calls()) - before == 1 and not again.failed
    causes = [d["cause"] for d in again.records[0]["discarded"]]
    assert causes == ["is_error", "rate_limit"]
    stats = summarize(again.records, len(doc_chunks), PRICES)
    assert stats["discarded"] == {"is_error": 1, "rate_limit": 1} and stats["failed"] == 0


def test_the_stage_fails_naming_the_chunks_and_writes_no_document_file(fake_claude, tmp_path, monkeypatch):
    settings, _ = fake_claude
    io = stage_io(tmp_path, settings)
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "empty:100")
    from ctxret import contexts
    with pytest.raises(InputError, match=r"no context for chunks 00000, 00001"):
        contexts.run(**io)
    assert not Path(io["output"][0]).exists()


def stage_io(tmp_path, settings):
    docs, chunks = demo_corpus(limit=1)
    (tmp_path / "res").mkdir(exist_ok=True)
    docs_path, chunks_path = tmp_path / "res" / "docs.jsonl", tmp_path / "res" / "chunks.jsonl"
    docs_path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    chunks_path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in chunks), encoding="utf-8")
    slug = docs[0]["slug"]
    return {"input": SimpleNamespace(docs=str(docs_path), chunks=str(chunks_path),
                                     template=str(ROOT / "config" / "context-prompt.txt")),
            "output": [str(tmp_path / "res" / "ctx" / "A1" / "docs" / f"{slug}.jsonl")],   # as the rule's list
            "params": SimpleNamespace(variant="A1", llm=settings, extra_sentence=EXTRA,
                                      store=str(tmp_path / "store"), attempts=2, backoff_s=0.0)}


KILL_SCRIPT = """
import json, sys
from types import SimpleNamespace as NS
from ctxret import contexts
io = json.loads(sys.argv[1])
contexts.run(input=NS(**io["input"]), output=io["output"], params=NS(**io["params"]))
"""


def test_kill_9_in_the_middle_of_a_document_loses_no_paid_call(fake_claude, tmp_path, monkeypatch):
    settings, calls = fake_claude
    io = stage_io(tmp_path, settings)
    slug = Path(io["output"][0]).stem
    n_chunks = len([c for c in read_lines(io["input"].chunks) if c["slug"] == slug])
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "ok:3,sleep:1")
    monkeypatch.setenv("FAKE_CLAUDE_SLEEP_S", "60")
    plain = {k: vars(v) if isinstance(v, SimpleNamespace) else v for k, v in io.items()}
    proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, json.dumps(plain)], start_new_session=True)
    deadline = time.time() + 60
    while len(calls()) < 4 and time.time() < deadline:   # the 4th call is the sleeping one
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(calls()) == 4
    monkeypatch.delenv("FAKE_CLAUDE_FAIL")
    from ctxret import contexts
    contexts.run(**io)
    assert len(calls()) == 4 + (n_chunks - 3)      # the three finished chunks were not asked again
    for path in list((tmp_path / "res").rglob("*.json")) + list((tmp_path / "store").rglob("*.json")):
        json.loads(path.read_text(encoding="utf-8"))  # no truncated JSON anywhere
    assert not list(tmp_path.rglob("*.tmp"))
    assert len(read_lines(io["output"][0])) == n_chunks


def test_estimate_is_within_ten_percent_of_what_the_fake_records(fake_claude, tmp_path):
    settings, _ = fake_claude
    docs, chunks = demo_corpus()
    prices = model_prices(PRICES, "opus")
    e = estimate(docs, chunks, TEMPLATE, EXTRA, prices, output_tokens=170)
    records, calls, _ = contexts_for(docs, chunks, settings, ContextStore(str(tmp_path / "store")))
    recorded = summarize(records, len(chunks), PRICES)
    assert e["calls"] == calls == len(chunks)
    for key, value in e["usage"].items():
        assert value == pytest.approx(recorded["usage"][key], rel=0.10), key
    assert e["cost_usd"] == pytest.approx(recorded["cost_usd"], rel=0.10)


def test_api_backends_give_the_same_record_shape(tmp_path, monkeypatch):
    from fakes.llm_servers import anthropic_server, openai_server
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    docs, chunks = demo_corpus(limit=1)
    with anthropic_server() as a, openai_server() as o:
        for settings in ({"backend": "anthropic", "model": "claude-haiku-4-5", "base_url": a.url},
                         {"backend": "openai", "model": "local", "base_url": f"{o.url}/v1"}):
            records, calls, _ = contexts_for(docs, chunks, settings,
                                             ContextStore(str(tmp_path / settings["backend"])))
            assert calls == len(records) == len(chunks)
            stats = summarize(records, len(chunks), PRICES)
            assert stats["results"] == len(chunks) and stats["cost_usd"] >= 0
            assert set(records[0]) >= {"context", "raw", "usage", "model", "started", "ended", "discarded"}
        # the Anthropic document is a cached system block: later calls read the cache
        anthropic_records = read_store_usage(tmp_path / "anthropic")
        assert sum(u["cache_read_input_tokens"] for u in anthropic_records) > 0


def read_store_usage(store_dir):
    return [json.loads(p.read_text(encoding="utf-8"))["usage"] for p in store_dir.rglob("*.json")]


def test_ledger_sums_by_hand():
    def rec(slug, read, write, cost, start, end):
        return {"slug": slug, "usage": {"input_tokens": 10, "output_tokens": 5,
                                        "cache_creation_input_tokens": write, "cache_read_input_tokens": read},
                "cost_usd": cost, "model": "claude-opus-5-5", "num_turns": 1,
                "raw": {"modelUsage": {"claude-opus-5-5": {}}}, "discarded": [],
                "started": start, "ended": end}
    records = [rec("a", 0, 100, 0.01, "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:05+00:00"),
               rec("a", 100, 0, 0.002, "2026-01-01T00:00:05+00:00", "2026-01-01T00:00:09+00:00"),
               rec("a", 120, 0, 0.003, "2026-01-01T00:00:09+00:00", "2026-01-01T00:00:12+00:00"),
               rec("b", 0, 50, 0.004, "2026-01-01T00:00:00+00:00", "2026-01-01T01:00:00+00:00")]
    s = summarize(records, 5, PRICES)
    assert (s["results"], s["failed"]) == (4, 1)
    assert s["input_tokens_total"] == 40 + 150 + 220
    assert s["cache_read_share"] == pytest.approx(220 / 410)
    assert s["document_tokens"] == 110          # median(100, 120) for a; b has no second call
    assert s["cost_usd"] == pytest.approx(0.019)
    assert s["cost_per_million_document_tokens"] == pytest.approx(0.019 / 110 * 1e6)
    assert s["elapsed_hours"] == pytest.approx(1.0)
    assert s["model_keys"] == {"claude-opus-5-5": 4} and s["turns"] == {1: 4}


def test_ctxlen_reports_hangul_and_leaked_questions():
    questions = ["컨슈머가 쫓겨나는 이유는?"]
    contexts = ["이 부분은 카프카 글의 폴링 절이다.", "This chunk is about polling.",
                "질문: 컨슈머가 쫓겨나는 이유는? 에 답하는 부분"]
    s = context_lengths(contexts, questions)
    assert s["under_20pct_hangul"] == 1 and s["with_question_verbatim"] == 1
    assert hangul_share("가a") == 0.5
