"""A1 by the OpenAI Batch API (openai-batch) on the loopback fake of the Batch and Files APIs: the
online `openai` backend's chat completions as JSONL lines keyed by the store, the batch price in
the estimate and the ledger, failed, expired and failed-batch requests sent again and counted by
cause, the maximum wait, and a kill -9 during the batch followed by a rerun that submits nothing
again and loses nothing."""
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from batchkill import killed_while_polling
from conftest import backend_for, read_lines, settings, write_lines
from fakes.llm_servers import openai_server

from ctxret.chunkers.corpus import chunk_corpus
from ctxret.contexts.ledger import estimate, summarize, versus
from ctxret.contexts.prices import batch_prices, model_prices, priced
from ctxret.contexts.per_document import ContextStore, chunk_key, document_contexts
from ctxret.contexts.prompt import read_prompt
from ctxret.errors import InputError
from ctxret.importers.manifests import read_articles
from ctxret.presentation.ledger_text import versus_lines
from ctxret.stages.contexts import contexts_batch
from ctxret.text.chunk_text import prompt_chunk

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "config" / "context-prompt.txt"
PROMPT = read_prompt(TEMPLATE)
EXTRA = "Answer in Korean, the language of the document."
PRICES = yaml.safe_load((ROOT / "config" / "prices.yaml").read_text(encoding="utf-8"))
MODEL = "gpt-4.1-mini"
FAST = {"max_wait_h": 1.0, "at_max_wait": "leave", "poll_s": 0.05, "poll_max_s": 0.2, "progress_s": 0.3}


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def demo(limit=None):
    manifests = sorted((ROOT / "data" / "demo" / "articles").glob("*.json"))
    docs = [d for d in read_articles(manifests) if "RAG" not in d["tags"]][:limit]
    return docs, chunk_corpus(docs, {"max_chars": 800}, "paragraph")


def llm(server, backend="openai-batch") -> dict:
    return settings(contexts={"llm": {"backend": backend, "model": MODEL, "base_url": f"{server.url}/v1",
                                      "timeout_s": 10}})["contexts"]["llm"]


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


def submitted(server) -> list[list[dict]]:
    """The input lines of every batch created, in order."""
    return [b["requests"] for b in server.batches.values()]


def records(io) -> list[dict]:
    return [r for path in io["output"] for r in read_lines(path)]


def test_one_batch_uploads_the_online_requests_keyed_by_the_store_and_is_priced_at_the_batch_price(tmp_path, capsys):
    docs, chunks = demo()
    with openai_server() as server:
        server.batch_delay_s = 1.0
        io = job(tmp_path, server, docs, chunks)
        run(io)
    [lines] = submitted(server)
    [upload] = [f for f in server.files.values() if f["purpose"] == "batch"]
    assert upload["data"].decode("utf-8").splitlines() == [json.dumps(x, ensure_ascii=False) for x in lines]
    [create] = [r["json"] for r in server.requests if r["method"] == "POST" and r["path"] == "/v1/batches"]
    assert (create["endpoint"], create["completion_window"]) == ("/v1/chat/completions", "24h")
    online = backend_for({"backend": "openai", "model": MODEL, "base_url": f"{server.url}/v1"})
    by_doc = {d["slug"]: d for d in docs}
    assert len(lines) == len(chunks)
    for line, chunk in zip(lines, chunks):   # the corpus order: a document's requests together
        doc, text = by_doc[chunk["slug"]], prompt_chunk(chunk)
        assert line["custom_id"] == chunk_key(online.identity(), PROMPT.sha256, EXTRA, doc["body"], text)
        assert (line["method"], line["url"]) == ("POST", "/v1/chat/completions")
        assert line["body"] == online.params(PROMPT.system_for(doc["body"]), PROMPT.user_for(text, EXTRA))
        assert line["body"]["messages"][0] == {"role": "system", "content": PROMPT.system_for(doc["body"])}
    got = records(io)
    assert [r["chunk_id"] for r in got] == [c["chunk_id"] for c in chunks]
    assert {r["batch"]["id"] for r in got} == set(server.batches)
    out = capsys.readouterr().out
    assert "batches open 1: done " in out                        # the progress line while it ran
    assert f"requests submitted {len(chunks)}, answers collected {len(chunks)}" in out
    ledger = summarize(got, len(chunks), PRICES)
    row = model_prices(PRICES, MODEL)
    assert ledger["cost_usd"] == pytest.approx(sum(priced(r["usage"], batch_prices(row)) for r in got))
    assert ledger["cost_usd"] == pytest.approx(sum(priced(r["usage"], row) for r in got) / 2)
    assert ledger["priced_at"] == {"batch": len(chunks)} and ledger["cache_read_share"] > 0.5
    e = estimate(docs, chunks, PROMPT, EXTRA, row, 170, "openai-batch")
    assert e["pays"] == "batch" and e["cost_usd"] == e["batch_cost_usd"] == pytest.approx(e["online_cost_usd"] / 2)
    for figure, vs in versus(e, ledger).items():   # the estimate within 10 % of the ledger
        if vs["ledger"]:
            assert abs(vs["error_pct"]) <= 10, (figure, vs)


def test_answers_are_shared_with_the_online_openai_backend_both_ways(tmp_path):
    docs, chunks = demo(limit=3)
    first = [c for c in chunks if c["slug"] == docs[0]["slug"]]
    with openai_server() as server:
        io = job(tmp_path, server, docs, chunks)
        store = ContextStore(io["params"]["store"])
        online = backend_for({"backend": "openai", "model": MODEL, "base_url": f"{server.url}/v1"})
        document_contexts(docs[0], first, online, PROMPT, EXTRA, store, 1, 0)   # paid online
        run(io)                                                                  # the rest by batch
        calls = lambda: sum(r["path"] == "/v1/chat/completions" for r in server.requests)  # noqa: E731
        paid_online = calls()
        for doc in docs[1:]:                                                     # read back online: 0 calls
            document_contexts(doc, [c for c in chunks if c["slug"] == doc["slug"]], online, PROMPT, EXTRA, store, 1, 0)
        assert calls() == paid_online == len(first)
    [lines] = submitted(server)
    assert len(lines) == len(chunks) - len(first)
    assert sum("batch" not in r for r in records(io)) == len(first)


def test_three_percent_failing_are_sent_again_in_a_later_batch_and_counted_by_cause(tmp_path, capsys):
    docs, chunks = demo()
    failing = max(2, round(0.03 * len(chunks)))
    with openai_server() as server:
        server.batch_fail("errored", failing - 1)   # 500 lines in the error file
        server.batch_fail("expired", 1)             # a batch_expired line; the batch ends `expired`
        io = job(tmp_path, server, docs, chunks)
        run(io)
    first, second = submitted(server)
    assert len(first) == len(chunks) and len(second) == failing
    got = records(io)
    assert len(got) == len(chunks)
    ledger = summarize(got, len(chunks), PRICES)
    assert ledger["discarded"] == {"errored": failing - 1, "expired": 1}
    assert ledger["calls"] == len(chunks) + failing and ledger["failed"] == 0
    assert ledger["priced_at"] == {"batch": len(chunks)}
    e = estimate(docs, chunks, PROMPT, EXTRA, model_prices(PRICES, MODEL), 170, "openai-batch")
    vs = versus(e, ledger)
    assert abs(vs["dollars"]["error_pct"]) <= 10, vs["dollars"]
    print("\n".join(versus_lines("A1", vs, PRICES["version"])))
    print(json.dumps({k: ledger[k] for k in ("calls", "discarded", "priced_at", "cost_usd", "cache_read_share")}))


def test_a_batch_that_fails_validation_is_sent_again_and_its_errors_are_printed(tmp_path, capsys):
    docs, chunks = demo(limit=2)
    with openai_server() as server:
        server.failed_batches = 1                   # the enqueued token limit
        io = job(tmp_path, server, docs, chunks)
        run(io)
    assert [len(lines) for lines in submitted(server)] == [len(chunks)] * 2
    [failed_id, _] = server.batches
    assert f"batch {failed_id}: the batch failed: token_limit_exceeded: Enqueued token limit reached" \
        in capsys.readouterr().out
    got = records(io)
    assert len(got) == len(chunks)
    assert summarize(got, len(chunks), PRICES)["discarded"] == {"errored": len(chunks)}


def test_a_request_failing_every_time_fails_the_job_naming_it_and_writes_no_file(tmp_path):
    docs, chunks = demo(limit=1)
    with openai_server() as server:
        server.batch_fail("errored", 3 * len(chunks))       # every request, three times (attempts 3)
        io = job(tmp_path, server, docs, chunks)
        with pytest.raises(InputError, match=rf"no context for chunks {chunks[0]['chunk_id']}, .* after 3 requests"):
            run(io)
    assert [len(lines) for lines in submitted(server)] == [len(chunks)] * 3
    assert not any(Path(p).exists() for p in io["output"])


def test_a_batch_running_at_the_maximum_wait_leaves_a_line_and_the_next_run_collects_it(tmp_path, capsys):
    docs, chunks = demo(limit=3)
    with openai_server() as server:
        server.batch_delay_s = 30
        io = job(tmp_path, server, docs, chunks, max_wait_h=1.0 / 3600)   # one second
        with pytest.raises(InputError, match=r"1 batches still running after contexts.batch.max_wait_h .*run again"):
            run(io)
        [batch_id] = server.batches
        assert f"batch {batch_id} 0 of {len(chunks)} done; run again to collect" in capsys.readouterr().out
        assert not any(Path(p).exists() for p in io["output"])
        server.batch_delay_s = 0
        run(io)
    assert len(submitted(server)) == 1 and len(records(io)) == len(chunks)
    assert f"requests submitted 0, answers collected {len(chunks)}" in capsys.readouterr().out


def test_at_the_maximum_wait_cancel_keeps_what_was_answered_and_the_next_run_sends_the_rest(tmp_path, capsys):
    docs, chunks = demo()
    with openai_server() as server:
        server.batch_delay_s = 4
        io = job(tmp_path, server, docs, chunks, max_wait_h=2.0 / 3600, at_max_wait="cancel")
        with pytest.raises(InputError, match=r"1 batches canceled after contexts.batch.max_wait_h .* requests were "
                                             r"not answered: run again to send them in a new batch"):
            run(io)
        [batch_id] = server.batches
        assert [r["path"] for r in server.requests if r["path"].endswith("/cancel")] == \
            [f"/v1/batches/{batch_id}/cancel"]
        assert f"batch {batch_id}: canceled at contexts.batch.max_wait_h; collecting what it answered" \
            in capsys.readouterr().out
        answered = sum(ContextStore(io["params"]["store"]).answer(x["custom_id"]) is not None
                       for x in submitted(server)[0])
        assert 0 < answered < len(chunks)
        server.batch_delay_s = 0
        run(io)
    assert [len(lines) for lines in submitted(server)] == [len(chunks), len(chunks) - answered]
    got = records(io)
    assert len(got) == len(chunks)
    assert summarize(got, len(chunks), PRICES)["discarded"] == {"canceled": len(chunks) - answered}


def test_kill_9_during_the_batch_then_a_rerun_submits_nothing_again_and_loses_nothing(tmp_path, capsys):
    docs, chunks = demo()
    with openai_server() as server:
        server.batch_delay_s = 60
        io = job(tmp_path, server, docs, chunks)
        killed = killed_while_polling(server, io)
        [batch_id] = server.batches
        assert f"batch {batch_id}: submitted {len(chunks):,} requests" in killed
        server.batch_delay_s = 0                          # the batch ends while no run is there
        run(io)
    out = capsys.readouterr().out
    assert len(submitted(server)) == 1                    # 0 resubmitted
    assert sum(f["purpose"] == "batch" for f in server.files.values()) == 1
    assert f"batch {batch_id}: submitted " in out and "by an earlier run; collecting it" in out
    assert f"chunks {len(chunks)}, from store 0, requests submitted 0, answers collected {len(chunks)}" in out
    got = records(io)
    assert [r["chunk_id"] for r in got] == [c["chunk_id"] for c in chunks]   # 0 lost
    assert {r["batch"]["id"] for r in got} == {batch_id}
    print(f"killed run:\n{killed}\nrerun:\n{out}")


def test_the_workflow_plans_one_batch_job_for_every_document(tmp_path):
    from workflow import mini_config, snakemake
    config = mini_config(tmp_path, contexts={"llm": {"backend": "openai-batch", "model": MODEL}})
    planned = snakemake(config, str(tmp_path / "results" / "var-A1.jsonl"), "-n").stdout
    counts = dict(line.split() for line in planned.splitlines()
                  if len(line.split()) == 2 and line.split()[1].isdigit())
    assert counts.get("contexts_batch") == "1" and "contexts" not in counts and "contexts_shards" not in counts


def test_openai_itself_without_a_key_stops_before_any_job(tmp_path):
    from workflow import mini_config, snakemake
    config = mini_config(tmp_path, contexts={"llm": {"backend": "openai-batch", "model": MODEL}})
    proc = snakemake(config, "-n", check=False, env={"OPENAI_API_KEY": ""})
    assert proc.returncode != 0
    assert "llm backend 'openai-batch': environment variable OPENAI_API_KEY is not set" in proc.stdout + proc.stderr
