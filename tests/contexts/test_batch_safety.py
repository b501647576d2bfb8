"""Batch results that are not what was asked for, on both batch backends' fakes: lines naming
custom ids this run never sent (`../victim`: never a path, never stored), requests the results
leave out (no output file, a file cut mid-line, lines omitted: failed attempts, never paid
without end), lines that cannot be read (each line on its own: a failed attempt, the rest
stored) and answers whose usage counts are malformed (kept, never paid again)."""
import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from conftest import read_lines, settings, write_lines
from fakes.llm_servers import anthropic_server, openai_server
from workflow import ROOT

from ctxret.contexts.ledger import summarize
from ctxret.contexts.per_document import ContextStore
from ctxret.errors import InputError
from ctxret.stages.contexts import contexts_batch

TEMPLATE = ROOT / "config" / "context-prompt.txt"
PRICES = yaml.safe_load((ROOT / "config" / "prices.yaml").read_text(encoding="utf-8"))
DOCS = [{"slug": s, "title": f"제목 {s}", "body": f"## 절\n\n{s} 첫째 문단이다.\n\n{s} 둘째 문단이다.\n\n{s} 셋째 문단이다."}
        for s in ("a", "b")]
CHUNKS = [{"chunk_id": f"{i:05d}", "slug": d["slug"], "title": d["title"], "section": "절", "text": text}
          for i, (d, text) in enumerate((d, f"{d['slug']} {n} 문단이다.") for d in DOCS for n in ("첫째", "둘째", "셋째"))]
APIS = ("anthropic", "openai")
UNSENT = "f" * 64   # a well-formed store key this run never sent


@pytest.fixture(autouse=True)
def api_keys(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def server_for(api: str):
    return anthropic_server() if api == "anthropic" else openai_server()


def job(tmp_path, server, **batch) -> dict:
    """rule contexts_batch's job on `server`; the store deep in tmp_path, so that a path a results
    line could climb to stays inside it."""
    llm = ({"backend": "anthropic-batch", "model": "claude-opus-5-5", "base_url": server.url} if server.api == "anthropic"
           else {"backend": "openai-batch", "model": "gpt-4.1-mini", "base_url": f"{server.url}/v1"})
    res = tmp_path / "res"
    return {"input": {"docs": str(write_lines(res / "docs.jsonl", DOCS)),
                      "chunks": str(write_lines(res / "chunks.jsonl", CHUNKS)), "template": str(TEMPLATE)},
            "output": [str(res / "ctx" / "A1" / "docs" / f"{d['slug']}.jsonl") for d in DOCS],
            "params": {"variant": "A1", "llm": settings(contexts={"llm": {**llm, "timeout_s": 10}})["contexts"]["llm"],
                       "extra_sentence": "", "store": str(tmp_path / "deep" / "er" / "store"), "attempts": 3,
                       "backoff_s": 0.0, "reply": settings()["contexts"]["reply"],
                       "batch": {"max_wait_h": 1.0, "at_max_wait": "leave", "poll_s": 0.05, "poll_max_s": 0.2,
                                 "progress_s": 5, **batch}}}


def run(io: dict) -> None:
    contexts_batch(input=SimpleNamespace(**io["input"]), output=io["output"], params=SimpleNamespace(**io["params"]))


def sent(server) -> list[list[str]]:
    """The custom ids of every batch created, in order."""
    return [[r["custom_id"] for r in b["requests"]] for b in server.batches.values()]


def records(io) -> list[dict]:
    return [r for path in io["output"] for r in read_lines(path)]


def lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def forged(text: str) -> str:
    """The results with lines for ids never sent added: an answer copied under `../victim` and
    under an unsent key, and an expired request `../../x/PWNED` (both APIs' words for it)."""
    first = json.loads(lines(text)[0])
    extra = [{**first, "custom_id": "../victim"}, {**first, "custom_id": UNSENT},
             {"custom_id": "../../x/PWNED", "result": {"type": "expired"}, "response": None,
              "error": {"code": "batch_expired", "message": "late"}}]
    return text + "".join(json.dumps(x) + "\n" for x in extra)


@pytest.mark.parametrize("api", APIS)
def test_results_lines_for_ids_this_run_did_not_send_are_ignored_and_never_become_paths(tmp_path, capsys, api):
    with server_for(api) as server:
        server.damage_results(forged)
        io = job(tmp_path, server)
        run(io)
    assert len(sent(server)) == 1
    assert [r["chunk_id"] for r in records(io)] == [c["chunk_id"] for c in CHUNKS]   # the sent ones stored
    store = ContextStore(io["params"]["store"])
    assert store.answer(UNSENT) is None and store.failures.get(UNSENT) is None
    climbed = [p for p in tmp_path.rglob("*") if "victim" in p.name or "PWNED" in p.name or p.name == "x"]
    assert climbed == [] and not (tmp_path.parent / "x").exists()
    [batch_id] = server.batches
    assert f"batch {batch_id}: 3 results lines ignored (a custom_id this batch was not sent" in capsys.readouterr().out


DAMAGES = {"left out": lambda text: "".join(lines(text)[1:]),                          # the first request's line
           "cut mid-line": lambda text: text[:len(text) - len(lines(text)[-1]) // 2],   # the last one's, cut in half
           "no results": lambda text: None}                                           # OpenAI: no output file


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("api", APIS)
def test_requests_the_results_leave_out_are_failed_attempts_and_the_run_stops_after_attempts(tmp_path, api, damage):
    with server_for(api) as server:
        server.damage_results(DAMAGES[damage], n=99)        # every batch
        io = job(tmp_path, server)
        with pytest.raises(InputError, match=r"^no context for chunks .* after 3 requests each") as e:
            run(io)
    assert "\n" not in str(e.value)
    batches = sent(server)
    per_key = Counter(k for b in batches for k in b)
    assert len(batches) == 3 and max(per_key.values()) == 3   # never more than contexts.attempts
    never = [k for k, n in per_key.items() if n == 3]
    assert len(never) == (len(CHUNKS) if damage == "no results" else 1)
    store = ContextStore(io["params"]["store"])
    for key in never:
        assert store.answer(key) is None
        assert [d["cause"] for d in store.failed_attempts(key)] == ["no_result"] * 3
    assert sum(store.answer(k) is not None for k in per_key) == len(CHUNKS) - len(never)   # the rest stored


@pytest.mark.parametrize("api", APIS)
def test_past_the_maximum_wait_nothing_is_sent_again_and_the_run_ends_with_one_line(tmp_path, api):
    with server_for(api) as server:
        server.damage_results(DAMAGES["left out"], n=99)
        io = job(tmp_path, server, max_wait_h=1e-9)         # passed by the time the batch has ended
        with pytest.raises(InputError, match=r"^contexts.batch.max_wait_h \(1e-09 h\) has passed: 1 failed requests "
                                             r"are not sent again by this run .*; run again to send them$"):
            run(io)
    assert [len(b) for b in sent(server)] == [len(CHUNKS)]


def unreadable(text: str) -> str:
    """The first line garbage, the second without its result, the last cut mid-line."""
    rows = lines(text)
    second = {k: v for k, v in json.loads(rows[1]).items() if k not in ("result", "response")}
    return "".join(["}{ not json\n", json.dumps(second) + "\n", *rows[2:-1], rows[-1][:len(rows[-1]) // 2]])


@pytest.mark.parametrize("api", APIS)
def test_every_results_line_is_read_on_its_own_and_one_that_cannot_be_is_a_failed_attempt(tmp_path, capsys, api):
    with server_for(api) as server:
        server.damage_results(unreadable)
        io = job(tmp_path, server)
        run(io)
    first, again = sent(server)
    assert sorted(again) == sorted([first[0], first[1], first[-1]])
    got = records(io)
    assert [r["chunk_id"] for r in got] == [c["chunk_id"] for c in CHUNKS]
    assert summarize(got, len(CHUNKS), PRICES)["discarded"] == {"no_result": 2, "malformed": 1}
    assert "2 results lines could not be read (first: a results line that is not JSON" in capsys.readouterr().out


MALFORMED_USAGE = {"anthropic": lambda m: {**m, "usage": {**m["usage"], "input_tokens": "lots", "output_tokens": [1]}},
                   "openai": lambda c: {**c, "usage": {**c["usage"], "prompt_tokens": "lots", "completion_tokens": [1]}}}


@pytest.mark.parametrize("api", APIS)
def test_an_answer_whose_usage_counts_are_malformed_is_kept_counted_and_never_paid_again(tmp_path, api):
    with server_for(api) as server:
        server.tamper(MALFORMED_USAGE[api])
        io = job(tmp_path, server)
        run(io)
        run(io)
    assert len(sent(server)) == 1
    got = records(io)
    assert len(got) == len(CHUNKS)
    [bad] = [r for r in got if r.get("usage_problem")]
    assert "'lots' is not a token count" in bad["usage_problem"] and "[1]" in bad["usage_problem"]
    assert bad["usage"]["output_tokens"] == 0 and bad["context"].startswith("이 청크는")
    assert summarize(got, len(CHUNKS), PRICES)["malformed_usage"] == 1


REFUSED = "I'm sorry, I can't help with that."
REFUSALS = {"anthropic": lambda m: {**m, "content": [{"type": "text", "text": REFUSED}]},
            "openai": lambda c: {**c, "choices": [{**c["choices"][0], "message": {**c["choices"][0]["message"],
                                                                               "content": REFUSED}}]}}


@pytest.mark.parametrize("api", APIS)
def test_a_batch_whose_every_reply_is_refused_stops_the_run_with_one_line_and_pays_nothing_more(tmp_path, api):
    with server_for(api) as server:
        server.tamper(REFUSALS[api], n=len(CHUNKS))
        io = job(tmp_path, server)
        with pytest.raises(InputError, match=rf"^batch \S+: all {len(CHUNKS)} replies failed the same check "
                                             r"\(refusal: .*\); none is sent again, nothing more is paid: .* run again$"):
            run(io)
        assert len(sent(server)) == 1
        run(io)                                              # the next run asks again; now answered
    assert len(sent(server)) == 2 and len(records(io)) == len(CHUNKS)


@pytest.mark.parametrize("api", APIS)
def test_a_create_call_whose_answer_is_lost_finds_its_batch_instead_of_creating_another(tmp_path, capsys, api):
    with server_for(api) as server:
        server.lost_creates = 1                              # the batch is made, the answer a 500
        io = job(tmp_path, server)
        run(io)
    [batch_id] = server.batches                              # billed once
    assert f"batch {batch_id}: created for " in capsys.readouterr().out
    assert [r["chunk_id"] for r in records(io)] == [c["chunk_id"] for c in CHUNKS]
    assert {r["batch"]["id"] for r in records(io)} == {batch_id}


@pytest.mark.parametrize("api", APIS)
def test_a_create_call_slower_than_its_timeout_is_waited_for_not_made_again(tmp_path, capsys, api):
    with server_for(api) as server:
        server.sleep_s = 2.0
        server.slow_creates = 1                              # the batch is made 2 s in, after the 1 s timeout
        io = job(tmp_path, server)
        io["params"]["llm"]["timeout_s"] = 1.0
        run(io)
    [batch_id] = server.batches                              # billed once
    out = capsys.readouterr().out
    assert "submitting a batch failed (timeout" in out and f"batch {batch_id}: created for " in out
    assert [r["chunk_id"] for r in records(io)] == [c["chunk_id"] for c in CHUNKS]
    assert {r["batch"]["id"] for r in records(io)} == {batch_id}


@pytest.mark.parametrize("api", APIS)
def test_a_run_that_stopped_inside_the_create_call_is_resumed_by_the_next_run_from_the_providers_list(tmp_path, api):
    with server_for(api) as server:
        server.lost_creates = 1
        io = job(tmp_path, server)
        io["params"]["attempts"] = 1                         # the run gives up on the create call
        with pytest.raises(InputError, match=r"^llm backend '\S+': submitting a batch failed 1 times \(http_error: "
                                             r".*\); run again: nothing is submitted twice$"):
            run(io)
        assert not any(Path(p).exists() for p in io["output"])
        io["params"]["attempts"] = 3
        run(io)
    [batch_id] = server.batches
    assert {r["batch"]["id"] for r in records(io)} == {batch_id} and len(records(io)) == len(CHUNKS)
