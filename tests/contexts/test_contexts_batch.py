"""A1 by the Message Batches API (anthropic-batch) on the loopback fake: the online backend's
requests with the store keys as custom_ids, the batch price in the estimate and the ledger,
failed requests sent again and counted by cause, the maximum wait, and a kill -9 during the
batch followed by a rerun that submits nothing again and loses nothing."""
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from batchkill import killed_while_polling
from conftest import backend_for, read_lines, settings, write_lines
from fakes.llm_servers import anthropic_server

from ctxret.chunkers.corpus import chunk_corpus
from ctxret.contexts.batches import Request, batches_of
from ctxret.contexts.ledger import estimate, summarize, versus
from ctxret.contexts.prices import batch_prices, model_prices, priced
from ctxret.contexts.per_document import ContextStore, chunk_key
from ctxret.contexts.prompt import read_prompt
from ctxret.errors import InputError
from ctxret.importers.manifests import read_articles
from ctxret.stages.contexts import contexts_batch
from ctxret.text.chunk_text import prompt_chunk

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "config" / "context-prompt.txt"
PROMPT = read_prompt(TEMPLATE)
EXTRA = "Answer in Korean, the language of the document."
PRICES = yaml.safe_load((ROOT / "config" / "prices.yaml").read_text(encoding="utf-8"))
FAST = {"max_wait_h": 1.0, "at_max_wait": "leave", "poll_s": 0.05, "poll_max_s": 0.2, "progress_s": 0.3}


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def demo(limit=None):
    manifests = sorted((ROOT / "data" / "demo" / "articles").glob("*.json"))
    docs = [d for d in read_articles(manifests) if "RAG" not in d["tags"]][:limit]
    return docs, chunk_corpus(docs, {"max_chars": 800}, "paragraph")


def llm(server) -> dict:
    return settings(contexts={"llm": {"backend": "anthropic-batch", "model": "claude-opus-5-5",
                                      "base_url": server.url, "timeout_s": 10}})["contexts"]["llm"]


def job(tmp_path, server, docs, chunks, **batch) -> dict:
    """rule contexts_batch's job: docs and chunks in, every document's records out."""
    res = tmp_path / "res"
    files = {"docs": str(write_lines(res / "docs.jsonl", docs)), "chunks": str(write_lines(res / "chunks.jsonl", chunks)),
             "template": str(TEMPLATE)}
    return {"input": files, "output": [str(res / "ctx" / "A1" / "docs" / f"{d['slug']}.jsonl") for d in docs],
            "params": {"variant": "A1", "llm": llm(server), "extra_sentence": EXTRA, "store": str(tmp_path / "store"),
                       "attempts": 3, "backoff_s": 0.0, "batch": {**FAST, **batch},
                       "reply": settings()["contexts"]["reply"]}}


def run(io: dict) -> None:
    contexts_batch(input=SimpleNamespace(**io["input"]), output=io["output"], params=SimpleNamespace(**io["params"]))


def creates(server) -> list[dict]:
    return [r["json"] for r in server.requests if r["method"] == "POST" and r["path"] == "/v1/messages/batches"]


def records(io) -> list[dict]:
    return [r for path in io["output"] for r in read_lines(path)]


def test_one_batch_sends_the_online_requests_keyed_by_the_store_and_is_priced_at_the_batch_price(tmp_path, capsys):
    docs, chunks = demo()
    with anthropic_server() as server:
        server.batch_delay_s = 1.0
        io = job(tmp_path, server, docs, chunks)
        run(io)
    [batch] = creates(server)
    assert len(batch["requests"]) == len(chunks)
    online = backend_for({"backend": "anthropic", "model": "claude-opus-5-5", "base_url": server.url})
    identity = online.identity()
    by_doc = {d["slug"]: d for d in docs}
    for request, chunk in zip(batch["requests"], chunks):   # the corpus order: a document's requests together
        doc, text = by_doc[chunk["slug"]], prompt_chunk(chunk)
        assert request["custom_id"] == chunk_key(identity, PROMPT.sha256, EXTRA, doc["body"], text)
        assert request["params"] == online.params(PROMPT.system_for(doc["body"]), PROMPT.user_for(text, EXTRA))
        assert ContextStore(str(tmp_path / "store")).answer(request["custom_id"]) is not None
    got = records(io)
    assert [r["chunk_id"] for r in got] == [c["chunk_id"] for c in chunks]
    assert {r["batch"]["id"] for r in got} == set(server.batches)
    out = capsys.readouterr().out
    assert "batches open 1: done " in out                        # the progress line while it ran
    assert f"requests submitted {len(chunks)}, answers collected {len(chunks)}" in out
    ledger = summarize(got, len(chunks), PRICES)
    opus = model_prices(PRICES, "claude-opus-5-5")
    assert ledger["cost_usd"] == pytest.approx(sum(priced(r["usage"], batch_prices(opus)) for r in got))
    assert ledger["cost_usd"] == pytest.approx(sum(priced(r["usage"], opus) for r in got) / 2)
    assert ledger["priced_at"] == {"batch": len(chunks)} and ledger["cache_read_share"] > 0.5
    e = estimate(docs, chunks, PROMPT, EXTRA, opus, 170, "anthropic-batch")
    assert e["pays"] == "batch" and e["cost_usd"] == e["batch_cost_usd"]
    for figure, row in versus(e, ledger).items():   # the estimate within 10 % of the ledger
        if row["ledger"]:
            assert abs(row["error_pct"]) <= 10, (figure, row)


def test_an_answer_paid_online_is_not_paid_again_by_batch(tmp_path):
    docs, chunks = demo(limit=2)
    with anthropic_server() as server:
        io = job(tmp_path, server, docs, chunks)
        online = backend_for({"backend": "anthropic", "model": "claude-opus-5-5", "base_url": server.url})
        from ctxret.contexts.per_document import document_contexts
        first = [c for c in chunks if c["slug"] == docs[0]["slug"]]
        document_contexts(docs[0], first, online, PROMPT, EXTRA, ContextStore(io["params"]["store"]), 1, 0)
        run(io)
    [batch] = creates(server)
    assert len(batch["requests"]) == len(chunks) - len(first)
    assert sum("batch" not in r for r in records(io)) == len(first)


def test_three_percent_failing_are_sent_again_in_a_later_batch_and_counted_by_cause(tmp_path, capsys):
    docs, chunks = demo()
    failing = max(2, round(0.03 * len(chunks)))
    with anthropic_server() as server:
        server.batch_fail("errored", failing - 1)
        server.batch_fail("expired", 1)
        io = job(tmp_path, server, docs, chunks)
        run(io)
    first, second = creates(server)
    assert len(first["requests"]) == len(chunks) and len(second["requests"]) == failing
    got = records(io)
    assert len(got) == len(chunks)
    ledger = summarize(got, len(chunks), PRICES)
    assert ledger["discarded"] == {"errored": failing - 1, "expired": 1}
    assert ledger["calls"] == len(chunks) + failing and ledger["failed"] == 0
    print(json.dumps({k: ledger[k] for k in ("calls", "discarded", "priced_at", "cost_usd", "cache_read_share")}))


def test_a_request_failing_every_time_fails_the_job_naming_it_and_writes_no_file(tmp_path):
    docs, chunks = demo(limit=1)
    with anthropic_server() as server:
        server.batch_fail("errored", 3 * len(chunks))       # every request, three times (attempts 3)
        io = job(tmp_path, server, docs, chunks)
        with pytest.raises(InputError, match=rf"no context for chunks {chunks[0]['chunk_id']}, .* after 3 requests"):
            run(io)
    assert [len(b["requests"]) for b in creates(server)] == [len(chunks)] * 3
    assert not any(Path(p).exists() for p in io["output"])


def test_a_batch_running_at_the_maximum_wait_leaves_a_line_and_the_next_run_collects_it(tmp_path, capsys):
    docs, chunks = demo(limit=3)
    with anthropic_server() as server:
        server.batch_delay_s = 30
        io = job(tmp_path, server, docs, chunks, max_wait_h=1.0 / 3600)   # one second
        with pytest.raises(InputError, match=r"1 batches still running after contexts.batch.max_wait_h .*run again"):
            run(io)
        [batch_id] = server.batches
        assert f"batch {batch_id} 0 of {len(chunks)} done; run again to collect" in capsys.readouterr().out
        assert not any(Path(p).exists() for p in io["output"])
        server.batch_delay_s = 0
        run(io)
    assert len(creates(server)) == 1 and len(records(io)) == len(chunks)
    assert f"requests submitted 0, answers collected {len(chunks)}" in capsys.readouterr().out


def test_at_the_maximum_wait_cancel_keeps_what_was_answered_and_the_next_run_sends_the_rest(tmp_path, capsys):
    docs, chunks = demo()
    with anthropic_server() as server:
        server.batch_delay_s = 4
        io = job(tmp_path, server, docs, chunks, max_wait_h=2.0 / 3600, at_max_wait="cancel")
        with pytest.raises(InputError, match=r"1 batches canceled after contexts.batch.max_wait_h .* requests were "
                                             r"not answered: run again to send them in a new batch"):
            run(io)
        [batch_id] = server.batches
        assert [r["path"] for r in server.requests if r["path"].endswith("/cancel")] == \
            [f"/v1/messages/batches/{batch_id}/cancel"]
        out = capsys.readouterr().out
        assert f"batch {batch_id}: canceled at contexts.batch.max_wait_h; collecting what it answered" in out
        answered = sum(ContextStore(io["params"]["store"]).answer(r["custom_id"]) is not None
                       for r in creates(server)[0]["requests"])
        assert 0 < answered < len(chunks)
        server.batch_delay_s = 0
        run(io)
    assert [len(b["requests"]) for b in creates(server)] == [len(chunks), len(chunks) - answered]
    got = records(io)
    assert len(got) == len(chunks)
    assert summarize(got, len(chunks), PRICES)["discarded"] == {"canceled": len(chunks) - answered}


def test_kill_9_during_the_batch_then_a_rerun_submits_nothing_again_and_loses_nothing(tmp_path, capsys):
    docs, chunks = demo()
    with anthropic_server() as server:
        server.batch_delay_s = 60
        io = job(tmp_path, server, docs, chunks)
        killed = killed_while_polling(server, io)
        [batch_id] = server.batches
        assert f"batch {batch_id}: submitted {len(chunks):,} requests" in killed
        server.batch_delay_s = 0                          # the batch ends while no run is there
        run(io)
    out = capsys.readouterr().out
    assert len(creates(server)) == 1                      # 0 resubmitted
    assert f"batch {batch_id}: submitted " in out and "by an earlier run; collecting it" in out
    assert f"chunks {len(chunks)}, from store 0, requests submitted 0, answers collected {len(chunks)}" in out
    got = records(io)
    assert [r["chunk_id"] for r in got] == [c["chunk_id"] for c in chunks]   # 0 lost
    assert {r["batch"]["id"] for r in got} == {batch_id}
    print(f"killed run:\n{killed}\nrerun:\n{out}")


def test_batches_keep_a_documents_requests_together_within_the_limits():
    def reqs(slug, n, size=10):
        return [Request(f"{slug}{i}", slug, {}, {"x": "y" * size}) for i in range(n)]
    size = lambda body: len(body["x"])   # noqa: E731
    requests = reqs("a", 3) + reqs("b", 3) + reqs("c", 5)
    parts = batches_of(requests, max_requests=6, max_bytes=10_000, size=size)
    assert [[r.key for r in p] for p in parts] == [["a0", "a1", "a2", "b0", "b1", "b2"], ["c0", "c1", "c2", "c3", "c4"]]
    parts = batches_of(requests, max_requests=100, max_bytes=45, size=size)   # bytes: 4 requests a batch
    assert [len(p) for p in parts] == [3, 3, 4, 1] and [r.slug for r in parts[2]] == ["c"] * 4


def test_the_workflow_plans_one_batch_job_for_every_document(tmp_path):
    from workflow import mini_config, snakemake
    llm = {"backend": "anthropic-batch", "model": "claude-opus-5-5"}
    config = mini_config(tmp_path, contexts={"llm": llm, "batch": {"max_wait_h": 2}})
    planned = snakemake(config, str(tmp_path / "results" / "var-A1.jsonl"), "-n").stdout
    counts = dict(line.split() for line in planned.splitlines()
                  if len(line.split()) == 2 and line.split()[1].isdigit())
    assert counts.get("contexts_batch") == "1" and "contexts" not in counts and "contexts_shards" not in counts


def test_a_batch_backend_for_a_model_without_batch_prices_stops_before_any_job(tmp_path):
    from workflow import mini_config, snakemake
    table = yaml.safe_load((ROOT / "config" / "prices.yaml").read_text(encoding="utf-8"))
    del table["models"]["claude-haiku-4-5"]["batch"]
    (tmp_path / "prices.yaml").write_text(yaml.safe_dump(table), encoding="utf-8")
    config = mini_config(tmp_path, contexts={"llm": {"backend": "anthropic-batch", "model": "haiku"},
                                             "prices": str(tmp_path / "prices.yaml")})
    proc = snakemake(config, "-n", check=False)
    assert proc.returncode != 0
    assert "model 'haiku' has no batch prices, which backend 'anthropic-batch' pays" in proc.stdout + proc.stderr
