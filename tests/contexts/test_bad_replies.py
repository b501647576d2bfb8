"""Paid and never lost, never used when wrong: replies whose usage or cost is malformed (kept, counted
in the ledger, never paid again), replies the checks reject (refusals, control characters, a
5-million-character reply: failed attempts, never contexts), stored answers damaged on disk (set
aside with one line, asked for again, never used), and a key a 200 answer echoes (never stored).
Every backend on its fake at the outside edge: the OpenAI-compatible and Anthropic servers, the
Message Batches API, `claude -p`."""
import json
from types import SimpleNamespace

import pytest
import yaml
from conftest import backend_for, read_lines, settings, write_lines
from fakes.llm_servers import anthropic_server, openai_server
from workflow import ROOT

from ctxret.contexts.ledger import summarize
from ctxret.contexts.per_document import CHECKSUM, ContextStore, document_contexts
from ctxret.contexts.prompt import read_prompt
from ctxret.contexts.replies import ReplyChecks
from ctxret.errors import InputError
from ctxret.presentation.ledger_text import stats_lines
from ctxret.stages.contexts import contexts as contexts_job, contexts_batch

TEMPLATE = ROOT / "config" / "context-prompt.txt"
PROMPT = read_prompt(TEMPLATE)
PRICES = yaml.safe_load((ROOT / "config" / "prices.yaml").read_text(encoding="utf-8"))
REPLY = settings()["contexts"]["reply"]
CHECKS = ReplyChecks.of(REPLY)
DOC = {"slug": "d", "title": "제목", "body": "## 절\n\n첫째 문단이다.\n\n둘째 문단이다."}
CHUNKS = [{"chunk_id": f"0000{i}", "slug": "d", "title": "제목", "section": "절", "text": text}
          for i, text in enumerate(("첫째 문단이다.", "둘째 문단이다."))]
SECRET = "sk-proj-CtxretEchoedKey0123456789"


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("CTXRET_TEST_KEY", SECRET)


def openai_llm(server) -> dict:
    return {"backend": "openai", "model": "local", "base_url": f"{server.url}/v1", "api_key_env": "CTXRET_TEST_KEY"}


def anthropic_llm(server) -> dict:
    return {"backend": "anthropic", "model": "claude-haiku-4-5", "base_url": server.url}


def contexts(llm: dict, store: ContextStore, attempts: int = 2):
    return document_contexts(DOC, CHUNKS, backend_for(llm), PROMPT, "", store, attempts, 0.0, CHECKS)


def stored_files(store_dir) -> list:
    return sorted(p for p in store_dir.rglob("*.json") if "claims" not in p.parts)


# -- 1. malformed usage or cost: the answer kept, recorded as such, never paid again ------------------

def with_usage(value):
    def tamper(answer):
        if value is DELETE:
            answer.pop("usage")
        else:
            answer["usage"] = value
        return answer
    return tamper


DELETE = object()
OPENAI_USAGES = {"a string": "lots", "a list": [1, 2], "missing": DELETE,
                 "a count 'two'": {"prompt_tokens": "two", "completion_tokens": 5},
                 "a negative count": {"prompt_tokens": 10, "completion_tokens": -3},
                 "a float count": {"prompt_tokens": 10.5, "completion_tokens": 5}}
ANTHROPIC_USAGES = {"a string": "lots", "a list": [1, 2], "missing": DELETE,
                    "a count 'two'": {"input_tokens": "two", "output_tokens": 5},
                    "a negative count": {"input_tokens": 10, "output_tokens": -3},
                    "a float count": {"input_tokens": 10, "output_tokens": 2.5}}


def assert_kept_and_counted(result, store, again, n_calls):
    """The first chunk's answer is kept with its problem, the ledger counts and shows it, and a
    rerun asks nothing."""
    first, second = result.records
    assert result.calls == 2 and not result.failed
    assert first["context"].startswith("이 청크는") and first["usage_problem"]
    assert "usage_problem" not in second
    assert store.answer(first["key"])["usage_problem"] == first["usage_problem"]
    ledger = summarize(result.records, 2, PRICES)
    assert ledger["malformed_usage"] == 1 and ledger["results"] == 2
    assert any(line.startswith("answers whose usage or cost was malformed 1 ") for line in stats_lines("A1", ledger))
    rerun = again()
    assert (rerun.calls, rerun.from_store, n_calls()) == (0, 2, 2)
    assert [r["context"] for r in rerun.records] == [r["context"] for r in result.records]


@pytest.mark.parametrize("case", OPENAI_USAGES)
def test_openai_an_answer_whose_usage_is_malformed_is_kept_and_counted(tmp_path, case):
    store = ContextStore(str(tmp_path / "store"))
    with openai_server() as server:
        server.tamper(with_usage(OPENAI_USAGES[case]))
        result = contexts(openai_llm(server), store)
        assert_kept_and_counted(result, store, lambda: contexts(openai_llm(server), store),
                                lambda: len(server.requests))


@pytest.mark.parametrize("case", ANTHROPIC_USAGES)
def test_anthropic_an_answer_whose_usage_is_malformed_is_kept_and_counted(tmp_path, case):
    store = ContextStore(str(tmp_path / "store"))
    with anthropic_server() as server:
        server.tamper(with_usage(ANTHROPIC_USAGES[case]))
        result = contexts(anthropic_llm(server), store)
        assert_kept_and_counted(result, store, lambda: contexts(anthropic_llm(server), store),
                                lambda: len(server.requests))


CLI_PATCHES = {"usage a string": {"usage": "lots"}, "usage a list": {"usage": [1, 2]},
               "usage missing": {"usage": None}, "a count 'two'": {"usage": {"input_tokens": "two", "output_tokens": 5}},
               "a negative count": {"usage": {"input_tokens": 2, "output_tokens": -1}},
               "cost 'free'": {"total_cost_usd": "free"}}


@pytest.mark.parametrize("case", CLI_PATCHES)
def test_claude_cli_an_answer_whose_usage_or_cost_is_malformed_is_kept_and_counted(tmp_path, fake_claude,
                                                                                    monkeypatch, case):
    llm, calls = fake_claude
    monkeypatch.setenv("FAKE_CLAUDE_PATCH", json.dumps([CLI_PATCHES[case]]))
    store = ContextStore(str(tmp_path / "store"))
    result = contexts(llm, store)
    assert_kept_and_counted(result, store, lambda: contexts(llm, store), lambda: len(calls()))
    if case == "cost 'free'":
        assert result.records[0]["cost_usd"] is None and "total_cost_usd 'free'" in result.records[0]["usage_problem"]


# -- 2. replies checked before they become contexts ------------------------------------------------

def with_text(text: str):
    def tamper(answer):
        if "choices" in answer:
            answer["choices"][0]["message"]["content"] = text
        else:
            answer["content"] = [{"type": "text", "text": text}]
        return answer
    return tamper


REJECTED = {"English refusal": ("I can't help with that request.", "refusal"),
            "curly apostrophe": ("I’m sorry, but I cannot provide that.", "refusal"),
            "Korean refusal": ("죄송하지만 요청하신 내용은 도와드릴 수 없습니다.", "refusal"),
            "Korean refusal, no apology": ("요청하신 작업은 제공해 드릴 수 없습니다.", "refusal"),
            "NUL bytes": ("이 청크는 설명한다.\x00\x00", "control_chars"),
            "a bell": ("이 청크는\x07 설명한다.", "control_chars"),
            "5 million characters": ("가" * 5_000_000, "too_long"),
            "whitespace only": (" \n\t ", "empty")}


@pytest.mark.parametrize("case", REJECTED)
def test_a_rejected_reply_is_a_failed_attempt_asked_again_and_never_a_context(tmp_path, case):
    text, cause = REJECTED[case]
    store = ContextStore(str(tmp_path / "store"))
    with openai_server() as server:
        server.tamper(with_text(text))
        result = contexts(openai_llm(server), store)
        assert result.calls == 3 and not result.failed                     # the first chunk asked twice
        first = result.records[0]
        assert first["context"].startswith("이 청크는 '제목") and "\x00" not in first["context"]
        assert [d["cause"] for d in first["discarded"]] == [cause]
        assert summarize(result.records, 2, PRICES)["discarded"] == {cause: 1}
        assert max(p.stat().st_size for p in stored_files(tmp_path / "store")) < 20_000   # nothing stored whole
        assert contexts(openai_llm(server), store).calls == 0


def test_a_reply_rejected_at_every_attempt_leaves_the_chunk_failed_with_its_causes(tmp_path):
    store = ContextStore(str(tmp_path / "store"))
    with openai_server() as server:
        server.tamper(with_text("I cannot help with this."), n=2)
        result = contexts(openai_llm(server), store, attempts=2)
    assert result.failed == ["00000"] and [r["chunk_id"] for r in result.records] == ["00001"]
    [failure] = stored_files(tmp_path / "store" / "ctx-failed")
    assert [d["cause"] for d in json.loads(failure.read_text())["discarded"]] == ["refusal", "refusal"]
    assert not (tmp_path / "store" / "ctx" / failure.parent.name / failure.name).exists()


def test_claude_cli_a_reply_with_nul_bytes_through_the_stage_job(tmp_path, fake_claude, monkeypatch):
    """The stage's own job (params.reply from the completed config): a claude -p reply with NUL
    bytes, then a good one."""
    llm, calls = fake_claude
    monkeypatch.setenv("FAKE_CLAUDE_PATCH", json.dumps([{"result": "맥락\u0000"}]))
    res = tmp_path / "res"
    shard = res / "ctx" / "shards" / "d.json"
    shard.parent.mkdir(parents=True)
    shard.write_text(json.dumps({"doc": DOC, "chunks": CHUNKS}, ensure_ascii=False), encoding="utf-8")
    out = res / "ctx" / "A1" / "docs" / "d.jsonl"
    contexts_job(input=SimpleNamespace(shard=str(shard), template=str(TEMPLATE)), output=[str(out)],
        params=SimpleNamespace(variant="A1", llm=llm, extra_sentence="", store=str(tmp_path / "store"), attempts=2,
                               backoff_s=0.0, reply=REPLY))
    records = read_lines(out)
    assert len(calls()) == 3 and all("\x00" not in r["context"] for r in records)
    assert [d["cause"] for d in records[0]["discarded"]] == ["control_chars"]


def test_the_reply_settings_are_the_users_and_a_bad_pattern_is_one_line():
    checks = ReplyChecks.of(settings(contexts={"reply": {"max_chars": 20, "refusal_patterns": [".*no comment"]}})
                            ["contexts"]["reply"])
    assert checks.problem("0123456789" * 3)[0] == "too_long"
    assert checks.problem("well, No comment")[0] == "refusal"
    assert checks.problem("I can't help") is None                      # the defaults replaced
    with pytest.raises(InputError, match=r"^config: contexts.reply.refusal_patterns.1: '\(unclosed' is not a regular "
                                         r"expression \(missing \), unterminated subpattern at position 0\)$"):
        settings(contexts={"reply": {"refusal_patterns": ["fine", "(unclosed"]}})


def batch_job(tmp_path, server) -> dict:
    res = tmp_path / "res"
    llm = settings(contexts={"llm": {"backend": "anthropic-batch", "model": "claude-opus-5-5", "base_url": server.url,
                                     "timeout_s": 10}})["contexts"]["llm"]
    return dict(input=SimpleNamespace(docs=str(write_lines(res / "docs.jsonl", [DOC])),
                                      chunks=str(write_lines(res / "chunks.jsonl", CHUNKS)), template=str(TEMPLATE)),
                output=[str(res / "ctx" / "A1" / "docs" / "d.jsonl")],
                params=SimpleNamespace(variant="A1", llm=llm, extra_sentence="", store=str(tmp_path / "store"),
                                       attempts=3, backoff_s=0.0, reply=REPLY,
                                       batch={"max_wait_h": 1.0, "at_max_wait": "leave", "poll_s": 0.05,
                                              "poll_max_s": 0.2, "progress_s": 5}))


def test_batch_a_refusal_is_sent_again_and_a_malformed_usage_kept(tmp_path):
    with anthropic_server() as server:
        server.tamper(with_text("I am sorry, I can't do that."))
        server.tamper(with_usage("lots"))
        job = batch_job(tmp_path, server)
        contexts_batch(**job)
        creates = [r for r in server.requests if r["method"] == "POST" and r["path"] == "/v1/messages/batches"]
        assert [len(c["json"]["requests"]) for c in creates] == [2, 1]       # the refused one sent again
        records = read_lines(job["output"][0])
        ledger = summarize(records, 2, PRICES)
        assert ledger["discarded"] == {"refusal": 1} and ledger["malformed_usage"] == 1
        assert all(r["context"].startswith("이 청크는") for r in records)
        contexts_batch(**job)
        assert len([r for r in server.requests if r["path"] == "/v1/messages/batches"]) == 2   # nothing again


# -- 3. stored answers verified when read --------------------------------------------------------------

def edited(path):
    answer = json.loads(path.read_text(encoding="utf-8"))
    answer["context"] = "EDITED by hand"
    path.write_text(json.dumps(answer, ensure_ascii=False), encoding="utf-8")


DAMAGES = {"edited context": edited,
           "{}": lambda p: p.write_text("{}"), "a list": lambda p: p.write_text("[1, 2]"),
           "a number": lambda p: p.write_text("42"), "a string": lambda p: p.write_text('"context"'),
           "null": lambda p: p.write_text("null"),
           "cut short": lambda p: p.write_bytes(p.read_bytes()[:50]),
           "invalid JSON": lambda p: p.write_text("}{"),
           "usage not counts": lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "usage": "x"}))}


@pytest.mark.parametrize("case", DAMAGES)
def test_a_damaged_stored_answer_is_set_aside_named_and_asked_again(tmp_path, capsys, case):
    store = ContextStore(str(tmp_path / "store"))
    with openai_server() as server:
        first = contexts(openai_llm(server), store)
        path = store.answers.path(first.records[0]["key"])
        DAMAGES[case](path)
        capsys.readouterr()
        again = contexts(openai_llm(server), store)
    assert (again.calls, again.from_store) == (1, 1)
    assert again.records[0]["context"] == first.records[0]["context"] != "EDITED by hand"
    [moved] = [p for p in (tmp_path / "store" / "quarantine" / "ctx").rglob("*") if p.is_file()]
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"store: {path} is damaged (") and line.endswith(f"moved to {moved}; it is paid for again")


def test_an_answer_stored_before_the_hash_is_read_by_its_fields(tmp_path):
    store = ContextStore(str(tmp_path / "store"))
    with openai_server() as server:
        first = contexts(openai_llm(server), store)
        for record in first.records:
            path = store.answers.path(record["key"])
            answer = json.loads(path.read_text(encoding="utf-8"))
            del answer[CHECKSUM]
            path.write_text(json.dumps(answer, ensure_ascii=False), encoding="utf-8")
        again = contexts(openai_llm(server), store)
    assert (again.calls, again.from_store) == (0, 2)
    assert [r["context"] for r in again.records] == [r["context"] for r in first.records]


def test_damaged_failed_attempts_are_set_aside_not_a_traceback(tmp_path, capsys):
    store = ContextStore(str(tmp_path / "store"))
    with openai_server() as server:
        key = contexts(openai_llm(server), store).records[0]["key"]
        store.failures.put(key, [1, 2])
        store.answers.path(key).unlink()
        again = contexts(openai_llm(server), store)
    assert again.calls == 1 and again.records[0]["discarded"] == []
    assert "its earlier failed attempts are forgotten" in capsys.readouterr().err


# -- 4. a key a 200 answer echoes is never stored ---------------------------------------------------

def test_a_key_echoed_in_a_200_answer_is_redacted_in_the_store_and_the_records(tmp_path):
    def echo(answer):
        answer["system_fingerprint"] = f"fp for {SECRET}"
        answer["choices"][0]["message"]["content"] += f" (key {SECRET})"
        return answer

    store = ContextStore(str(tmp_path / "store"))
    with openai_server() as server:
        server.tamper(echo)
        result = contexts(openai_llm(server), store)
        assert SECRET in json.dumps(server.requests[0]["headers"])
        again = contexts(openai_llm(server), store)
    assert again.calls == 0                                                # the redacted answer verifies
    first = result.records[0]
    assert first["context"].endswith("(key [$CTXRET_TEST_KEY])")
    assert first["raw"]["system_fingerprint"] == "fp for [$CTXRET_TEST_KEY]"
    assert all(SECRET.encode() not in p.read_bytes() for p in stored_files(tmp_path / "store"))
    assert SECRET not in json.dumps(result.records + again.records)
