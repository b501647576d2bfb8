"""LLM backends against fakes speaking the real protocols: a fake `claude` CLI, loopback HTTP."""
import json
from pathlib import Path

import pytest
from conftest import FAKE_CLAUDE, backend_for, settings as completed
from fakes.echo_backend import ECHO
from fakes.llm_servers import anthropic_server, openai_server

from ctxret.contexts.llm import (BACKENDS, FREE_BACKEND, AttemptFailed, CallResult, ContextFailed, call_with_retries,
                                 free_context, make_backend, priced_model)
from ctxret.contexts.llm.claude_cli import MAX_ARG_BYTES, parse_output
from ctxret.contexts.llm.heuristic import HeuristicBackend, context_forms
from ctxret.contexts.prompt import parse_prompt
from ctxret.errors import InputError
from ctxret.settings import load_schema

WORK_TREE = Path(__file__).resolve().parents[2]

BODY = ("서킷 브레이커는 장애가 번지는 것을 막는다. 이 글은 그 설정을 다룬다.\n\n"
        "## 세 가지 상태\n\n"
        "서킷 브레이커는 closed, open, half-open 세 상태를 오간다. closed는 정상 상태다.\n\n"
        "open 상태에서는 즉시 실패를 반환한다.\n\n"
        "## 느린 호출\n\n"
        "```yaml\nslowCallDurationThreshold: 2s\n```\n\n"
        "느린 호출도 실패로 센다. 8초씩 걸리는 호출은 실패보다 나쁘다.\n")
DOC = {"slug": "circuit-breaker", "title": "서킷 브레이커", "body": BODY}


def chunk_of(text: str) -> dict:
    start = BODY.index(text)
    section = ""
    for line in BODY[:start].splitlines():
        if line.startswith("## "):
            section = line[3:]
    return {"chunk_id": "00001", "slug": DOC["slug"], "title": DOC["title"], "section": section,
            "start": start, "end": start + len(text), "text": text}


CHUNK = chunk_of("open 상태에서는 즉시 실패를 반환한다.")
USER = parse_prompt("[system]\n{{WHOLE_DOCUMENT}}\n[user]\n<chunk>{{CHUNK_CONTENT}}</chunk>\n짧은 맥락을 쓰시오."
                    ).user_for(CHUNK["text"], "")
USAGE_KEYS = {"input_tokens", "output_tokens", "cache_creation_input_tokens",
              "cache_read_input_tokens"}


@pytest.fixture
def claude(fake_claude):
    """A claude-cli backend on the fake CLI; returns (make, log lines)."""
    settings, calls = fake_claude

    def make(**overrides):
        return backend_for({**settings, **overrides})

    return make, calls


# -- claude-cli --------------------------------------------------------------------------------

def test_claude_cli_happy_path(claude):
    make, calls = claude
    result = make().call(BODY, USER, DOC, CHUNK)
    assert isinstance(result, CallResult)
    assert result.context.startswith("이 청크는 'open 상태에서는 즉시")
    assert result.raw["type"] == "result" and result.raw["session_id"]
    assert result.model == "claude-opus-5-5"
    assert result.num_turns == 1 and result.duration_ms > 0
    assert set(result.usage) == USAGE_KEYS
    assert result.usage["cache_creation_input_tokens"] == result.raw["usage"]["cache_creation_input_tokens"] > 0
    assert result.usage["cache_read_input_tokens"] == 0
    assert result.cost_usd == pytest.approx(result.raw["total_cost_usd"]) and result.cost_usd > 0

    (call,) = calls()
    argv = call["argv"]
    assert argv[:2] == ["-p", "--safe-mode"]
    for flag, value in [("--setting-sources", "project"), ("--effort", "high"), ("--tools", ""),
                        ("--output-format", "json"), ("--model", "opus"), ("--system-prompt", BODY)]:
        assert argv[argv.index(flag) + 1] == value
    assert "--no-session-persistence" in argv
    assert call["stdin"] == USER
    cwd = Path(call["cwd"])
    assert call["cwd_entries"] == []
    assert WORK_TREE not in cwd.parents and cwd != WORK_TREE
    assert not cwd.exists()                       # removed afterwards
    assert call["anthropic_api_key"] is False     # stripped by default

    # same system prompt: the document is read from the cache; the user message is written to
    # it in every call, as the CLI does, with a couple of uncached tokens
    second = make().call(BODY, USER, DOC, CHUNK)
    written_user = second.usage["cache_creation_input_tokens"]
    assert 0 < written_user < len(USER)
    assert second.usage["cache_read_input_tokens"] == result.usage["cache_creation_input_tokens"] - written_user
    assert second.usage["input_tokens"] == result.usage["input_tokens"] == 2
    assert second.cost_usd < result.cost_usd
    assert calls()[1]["cwd"] != call["cwd"]       # a fresh directory every call


def test_claude_cli_gets_no_key_variable_the_project_knows(claude, monkeypatch):
    make, calls = claude
    for name in ("OPENAI_API_KEY", "QDRANT_API_KEY"):
        monkeypatch.setenv(name, "sk-should-not-leak")
    make().call(BODY, USER, DOC, CHUNK)
    assert calls()[0]["key_variables"] == []


def test_claude_cli_keeps_api_key_when_not_stripped(claude):
    make, calls = claude
    make(strip_env=[]).call(BODY, USER, DOC, CHUNK)
    assert calls()[0]["anthropic_api_key"] is True


@pytest.mark.parametrize("fail, cause", [("is_error", "is_error"), ("rate_limit", "rate_limit"),
                                         ("not_json", "not_json"), ("empty", "empty"),
                                         ("exit_status", "exit_status")])
def test_claude_cli_failures_are_mapped(claude, monkeypatch, fail, cause):
    make, _ = claude
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", f"{fail}:1")
    with pytest.raises(AttemptFailed) as e:
        make().call(BODY, USER, DOC, CHUNK)
    assert e.value.cause == cause and e.value.detail
    assert make().call(BODY, USER, DOC, CHUNK).context  # only the first call failed


def test_claude_cli_timeout(claude, monkeypatch):
    make, calls = claude
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "sleep:1")
    with pytest.raises(AttemptFailed) as e:
        make(timeout_s=0.5).call(BODY, USER, DOC, CHUNK)
    assert e.value.cause == "timeout"
    assert not Path(calls()[0]["cwd"]).exists()


def test_claude_cli_missing_executable_is_a_configuration_error(tmp_path):
    missing = tmp_path / "no-such-claude"
    with pytest.raises(InputError, match=str(missing)):
        backend_for({"backend": "claude-cli", "executable": str(missing)})


def test_claude_cli_sends_a_long_document_as_a_system_prompt_file(claude):
    make, calls = claude
    long_body = "가" * 50_000                               # 150 000 bytes > MAX_ARG_STRLEN
    assert len(long_body.encode()) > MAX_ARG_BYTES
    result = make().call(long_body, USER, DOC, CHUNK)
    (call,) = calls()
    assert "--system-prompt" not in call["argv"]
    path = Path(call["argv"][call["argv"].index("--system-prompt-file") + 1])
    assert path.is_absolute() and path.parent != Path(call["cwd"]) and call["cwd_entries"] == []
    assert call["system"] == long_body and call["stdin"] == USER
    assert not path.exists()                                # removed afterwards
    assert result.usage["cache_creation_input_tokens"] > len(long_body) / 2


@pytest.mark.parametrize("extra, message", [
    ([], "give the system prompt once"),
    (["--system-prompt", "a", "--system-prompt-file", "b"], "give the system prompt once"),
    (["--system-prompt", "a", "--system-prompt-stdin"], "unexpected argument '--system-prompt-stdin'")])
def test_claude_cli_fake_rejects_what_the_cli_rejects(tmp_path, extra, message):
    import subprocess
    full = ["-p", "--safe-mode", "--setting-sources", "project", "--effort", "high", "--tools", "",
            "--no-session-persistence", "--output-format", "json", "--model", "opus"]
    missing = subprocess.run([str(FAKE_CLAUDE), "-p", "--model", "opus", "--system-prompt", "a"],
                             input="", text=True, capture_output=True, cwd=tmp_path)
    assert missing.returncode == 2 and "missing required flags" in missing.stderr
    proc = subprocess.run([str(FAKE_CLAUDE), *full, *extra], input="", text=True,
                          capture_output=True, cwd=tmp_path)
    assert proc.returncode == 2 and message in proc.stderr


def test_parse_output_takes_the_result_event_of_a_verbose_list():
    events = [{"type": "system"}, {"type": "result", "is_error": False, "result": " 맥락 ",
                                   "num_turns": 1, "duration_ms": 5, "total_cost_usd": 0.01,
                                   "usage": {"input_tokens": 3}, "modelUsage": {"a": {}, "b": {}}}]
    result = parse_output(json.dumps(events), 0)
    assert (result.context, result.model, result.usage["input_tokens"]) == ("맥락", "a,b", 3)
    assert result.usage["output_tokens"] == 0


# -- retries ------------------------------------------------------------------------------------

def test_retries_recover_after_two_failures(claude, monkeypatch):
    make, calls = claude
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "is_error:1,not_json:1")
    slept = []
    result, discarded = call_with_retries(make(), BODY, USER, DOC, CHUNK, attempts=3,
                                          backoff_s=1.5, sleep=slept.append)
    assert result.context and len(calls()) == 3
    assert [d["cause"] for d in discarded] == ["is_error", "not_json"]
    assert all(set(d) == {"cause", "detail", "at"} and "T" in d["at"] for d in discarded)
    assert slept == [1.5, 3.0]


def test_retries_give_up_after_the_limit(claude, monkeypatch):
    make, calls = claude
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "rate_limit:5")
    slept = []
    with pytest.raises(ContextFailed, match=r"3 attempts \(rate_limit, rate_limit, rate_limit\)") as e:
        call_with_retries(make(), BODY, USER, DOC, CHUNK, attempts=3, backoff_s=2,
                          sleep=slept.append)
    assert [d["cause"] for d in e.value.discarded] == ["rate_limit"] * 3
    assert slept == [2, 4] and len(calls()) == 3


def test_a_refused_login_fails_at_once_without_a_retry(claude, monkeypatch):
    make, calls = claude
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "auth:5")
    with pytest.raises(InputError, match=r"llm backend 'claude-cli': the claude CLI is refused: .*Please run /login"):
        call_with_retries(make(), BODY, USER, DOC, CHUNK, attempts=4, backoff_s=60, sleep=pytest.fail)
    assert len(calls()) == 1


def test_every_retry_prints_one_line(claude, monkeypatch, capsys):
    make, calls = claude
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "rate_limit:2")
    call_with_retries(make(), BODY, USER, DOC, CHUNK, attempts=4, backoff_s=2, sleep=lambda s: None)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and len(calls()) == 3
    assert lines[0].startswith(f"  chunk {CHUNK['chunk_id']}: attempt 1 of 4 failed (rate_limit: ")
    assert lines[1].endswith("; again in 4 s")


# -- anthropic ----------------------------------------------------------------------------------

@pytest.fixture
def api_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-oai-test")


def anthropic_backend(server, **settings):
    return backend_for({"backend": "anthropic", "model": "claude-opus-test", "base_url": server.url,
                         "timeout_s": 5, **settings})


def test_anthropic_caches_the_document(api_key):
    with anthropic_server() as server:
        backend = anthropic_backend(server)
        first = backend.call(BODY, USER, DOC, CHUNK)
        second = backend.call(BODY, USER, DOC, CHUNK)
    request = server.requests[0]
    assert request["path"] == "/v1/messages"
    headers = request["headers"]  # SDK 2.x sends the key as a bearer token, 0.x as x-api-key
    assert "sk-ant-test" in (headers.get("x-api-key"), headers.get("authorization", "")[7:])
    body = request["json"]
    assert body["system"] == [{"type": "text", "text": BODY, "cache_control": {"type": "ephemeral"}}]
    assert body["messages"] == [{"role": "user", "content": USER}]
    assert body["max_tokens"] == 1024 and body["model"] == "claude-opus-test"
    assert first.context.startswith("이 청크는 'open") and first.model == "claude-opus-test"
    assert first.usage["cache_creation_input_tokens"] > 0 and first.usage["cache_read_input_tokens"] == 0
    assert second.usage["cache_read_input_tokens"] == first.usage["cache_creation_input_tokens"]
    assert second.usage["cache_creation_input_tokens"] == 0
    assert first.cost_usd is None and first.num_turns == 1 and set(first.usage) == USAGE_KEYS
    assert first.raw["type"] == "message" and first.raw["usage"]["input_tokens"] > 0


@pytest.mark.parametrize("mode, cause", [("429", "rate_limit"), ("500", "http_error"),
                                         ("sleep", "timeout")])
def test_anthropic_failures_are_mapped(api_key, mode, cause):
    with anthropic_server(sleep_s=3) as server:
        server.fail(mode)
        backend = anthropic_backend(server, timeout_s=0.5)
        with pytest.raises(AttemptFailed) as e:
            backend.call(BODY, USER, DOC, CHUNK)
        assert e.value.cause == cause
        assert len(server.requests) == 1                     # the SDK itself never retries
        result, discarded = call_with_retries(backend, BODY, USER, DOC, CHUNK, attempts=2,
                                              backoff_s=0, sleep=lambda s: None)
    assert result.context and discarded == []


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_a_refused_key_and_a_dead_endpoint_fail_at_once_naming_the_url(api_key, api):
    server_of, backend_of = (anthropic_server, anthropic_backend) if api == "anthropic" else (openai_server, openai_backend)
    with server_of() as server:
        server.fail("401", 3)
        backend = backend_of(server)
        with pytest.raises(InputError, match=rf"llm backend '{api}': {server.url}/?(v1/?)? answered HTTP 401: "):
            call_with_retries(backend, BODY, USER, DOC, CHUNK, attempts=4, backoff_s=60, sleep=pytest.fail)
        assert len(server.requests) == 1
    # the server is gone: the port refuses
    with pytest.raises(InputError, match=rf"llm backend '{api}': {server.url}/?(v1/?)? cannot be reached: .*"
                                         rf"(refused|Connection error)"):
        call_with_retries(backend_of(server), BODY, USER, DOC, CHUNK, attempts=4, backoff_s=60, sleep=pytest.fail)


@pytest.mark.parametrize("api", ["anthropic", "openai"])
@pytest.mark.parametrize("mode, shown", [("empty", "an empty body"), ("garbage", "'}{ not json'"),
                                         ("html", "'<html><body><h1>502 Bad Gateway"), ("shapeless", "ok")])
def test_a_200_that_is_not_the_apis_answer_is_a_failed_attempt_naming_the_url_and_body(api_key, api, mode, shown):
    server_of, backend_of = (anthropic_server, anthropic_backend) if api == "anthropic" else (openai_server, openai_backend)
    with server_of() as server:
        server.fail(mode)
        backend = backend_of(server)
        with pytest.raises(AttemptFailed) as e:
            backend.call(BODY, USER, DOC, CHUNK)
        assert e.value.cause == "not_json" and server.url in e.value.detail and shown in e.value.detail
        server.fail(mode, n=3)                               # retried like a 5xx, then given up
        with pytest.raises(ContextFailed):
            call_with_retries(backend, BODY, USER, DOC, CHUNK, attempts=3, backoff_s=0, sleep=lambda s: None)


def test_anthropic_needs_its_key(monkeypatch):
    monkeypatch.delenv("MY_KEY", raising=False)
    with pytest.raises(InputError, match="MY_KEY"):
        backend_for({"backend": "anthropic", "model": "m", "api_key_env": "MY_KEY"})


# -- openai -------------------------------------------------------------------------------------

def openai_backend(server, **settings):
    return backend_for({"backend": "openai", "model": "gpt-test", "base_url": server.url + "/v1",
                         "timeout_s": 5, **settings})


def test_openai_happy_path(api_key):
    with openai_server() as server:
        backend = openai_backend(server)
        first = backend.call(BODY, USER, DOC, CHUNK)
        second = backend.call(BODY, USER, DOC, CHUNK)
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == "Bearer sk-oai-test"
    assert request["json"]["messages"] == [{"role": "system", "content": BODY},
                                           {"role": "user", "content": USER}]
    assert request["json"]["temperature"] == 0 and request["json"]["max_tokens"] == 1024
    assert first.context.startswith("이 청크는 'open") and first.model == "gpt-test"
    assert first.usage["input_tokens"] == first.raw["usage"]["prompt_tokens"]
    assert first.usage["output_tokens"] == first.raw["usage"]["completion_tokens"]
    assert first.usage["cache_read_input_tokens"] == 0 < second.usage["cache_read_input_tokens"]
    # prompt_tokens counts the cached prefix too: the uncached input is the rest
    assert second.usage["input_tokens"] == (second.raw["usage"]["prompt_tokens"]
                                            - second.usage["cache_read_input_tokens"]) > 0
    assert first.cost_usd is None and first.num_turns == 1


@pytest.mark.parametrize("mode, cause", [("500", "http_error"), ("429", "rate_limit")])
def test_openai_failures_are_mapped(api_key, mode, cause):
    with openai_server() as server:
        server.fail(mode)
        with pytest.raises(AttemptFailed) as e:
            openai_backend(server).call(BODY, USER, DOC, CHUNK)
    assert e.value.cause == cause and mode in e.value.detail


def test_openai_without_a_key_sends_none(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with openai_server() as server:
        openai_backend(server).call(BODY, USER, DOC, CHUNK)
    assert server.requests[0]["headers"]["authorization"] == "Bearer none"


# -- heuristic ----------------------------------------------------------------------------------

def test_heuristic_is_deterministic_and_names_title_and_section():
    backend = backend_for({"backend": "heuristic", "language": "ko"})
    result = backend.call("", "", DOC, CHUNK)
    assert result == backend.call("", "", DOC, CHUNK)
    assert result.context == ("이 부분은 「서킷 브레이커」 글의 「세 가지 상태」 절에 속한다. "
                              "절의 첫 문장: 서킷 브레이커는 closed, open, half-open 세 상태를 오간다.")
    assert (result.cost_usd, result.model, result.duration_ms) == (0.0, "heuristic", 0)
    assert set(result.usage.values()) == {0}


def test_heuristic_skips_code_and_handles_the_introduction():
    backend = backend_for({"backend": "heuristic", "language": "ko"})
    slow = backend.call("", "", DOC, chunk_of("느린 호출도 실패로 센다. 8초씩 걸리는 호출은 실패보다 나쁘다."))
    assert slow.context.endswith("절의 첫 문장: 느린 호출도 실패로 센다.")
    intro = backend.call("", "", DOC, chunk_of("서킷 브레이커는 장애가 번지는 것을 막는다."))
    assert intro.context == ("이 부분은 「서킷 브레이커」 글의 도입부에 속한다. "
                             "글의 첫 문장: 서킷 브레이커는 장애가 번지는 것을 막는다.")


def test_heuristic_speaks_the_corpus_language():
    english = backend_for({"backend": "heuristic", "language": "en"})
    assert english.call("", "", DOC, CHUNK).context == (
        "This part belongs to the section “세 가지 상태” of “서킷 브레이커”. "
        "The section's first sentence: 서킷 브레이커는 closed, open, half-open 세 상태를 오간다.")
    assert backend_for({"backend": "heuristic", "language": "de"}).call("", "", DOC, CHUNK).context \
        == english.call("", "", DOC, CHUNK).context   # every language but Korean gets the English pattern


PLAIN = ("잠실야구장은 서울 송파구에 있다. 1982년에 문을 열었다.\n\n"
         "두 구단이 이 구장을 함께 쓴다. 관중석은 2만 5천 석이다.\n\n"
         "2026년에 새 구장 공사가 시작된다.")
PLAIN_DOC = {"slug": "잠실야구장", "title": "잠실야구장", "body": PLAIN}


def plain_chunk(text: str) -> dict:
    start = PLAIN.index(text)
    return {"chunk_id": "00002", "slug": "잠실야구장", "title": "잠실야구장", "section": "",
            "start": start, "end": start + len(text), "text": text}


def test_heuristic_on_a_document_without_headings_names_the_neighbour_sentences_not_an_introduction():
    backend = backend_for({"backend": "heuristic", "language": "ko"})
    middle = backend.call("", "", PLAIN_DOC, plain_chunk("두 구단이 이 구장을 함께 쓴다. 관중석은 2만 5천 석이다.")).context
    assert middle == ("이 부분은 「잠실야구장」 글의 일부다. 바로 앞 문장: 1982년에 문을 열었다. "
                      "바로 뒤 문장: 2026년에 새 구장 공사가 시작된다.")
    first = backend.call("", "", PLAIN_DOC, plain_chunk("잠실야구장은 서울 송파구에 있다. 1982년에 문을 열었다.")).context
    assert first == "이 부분은 「잠실야구장」 글의 일부다. 바로 뒤 문장: 두 구단이 이 구장을 함께 쓴다."
    alone = {"slug": "a", "title": "짧은 글", "body": "한 문장뿐이다."}
    only = backend.call("", "", alone, {"section": "", "start": 0, "end": len(alone["body"]), "text": alone["body"]})
    assert only.context == "이 부분은 「짧은 글」 글의 일부다."
    assert all("도입부" not in c for c in (middle, first, only.context))
    untitled = backend.call("", "", {**alone, "title": ""}, {"section": "", "start": 0, "end": len(alone["body"]), "text": alone["body"]})
    assert untitled.context == "이 부분은 이 글의 일부다."                   # never an id in place of a title


def test_heuristic_takes_the_fullest_form_that_fits():
    chunk = plain_chunk("두 구단이 이 구장을 함께 쓴다. 관중석은 2만 5천 석이다.")
    forms = context_forms(PLAIN_DOC, chunk, "ko")
    assert forms[-2:] == ["이 부분은 「잠실야구장」 글의 일부다.", ""] and len(forms) == 4
    assert forms[1] == "이 부분은 「잠실야구장」 글의 일부다. 바로 앞 문장: 1982년에 문을 열었다."
    for limit, expected in ((len(forms[0]), forms[0]), (len(forms[1]), forms[1]), (len(forms[2]), forms[2]),
                            (0, forms[2])):           # nothing fits: T1 itself is over, the title stays
        backend = HeuristicBackend({"language": "ko"}, lambda c, _: 0 < len(c) <= limit or (c == "" and limit))
        assert backend.call("", "", PLAIN_DOC, chunk).context == expected
    sectioned = context_forms(DOC, CHUNK, "ko")
    assert sectioned == [backend_for({"backend": "heuristic", "language": "ko"}).call("", "", DOC, CHUNK).context,
                         "이 부분은 「서킷 브레이커」 글의 「세 가지 상태」 절에 속한다.", ""]


# -- prompt and identity ------------------------------------------------------------------------

def test_the_prompt_template_has_a_system_and_a_user_part(tmp_path):
    prompt = parse_prompt("# comment\n[system]\n<document>\n{{WHOLE_DOCUMENT}}\n</document>\n\n"
                          "[user]\n<chunk>\n{{CHUNK_CONTENT}}\n</chunk>\n{x}\n")
    assert prompt.system_for("문서 {{CHUNK_CONTENT}}") == "<document>\n문서 {{CHUNK_CONTENT}}\n</document>"
    assert prompt.user_for("청크 {{WHOLE_DOCUMENT}}", "한국어로 답하라.") == (
        "<chunk>\n청크 {{WHOLE_DOCUMENT}}\n</chunk>\n{x}\n한국어로 답하라.")
    assert prompt.user_for("c", "") == "<chunk>\nc\n</chunk>\n{x}"
    # comments do not count; the parts do
    assert parse_prompt("[system]\n<document>\n{{WHOLE_DOCUMENT}}\n</document>\n[user]\n"
                        "<chunk>\n{{CHUNK_CONTENT}}\n</chunk>\n{x}").sha256 == prompt.sha256
    assert parse_prompt("[system]\n{{WHOLE_DOCUMENT}}\n[user]\n{{CHUNK_CONTENT}}").sha256 != prompt.sha256


@pytest.mark.parametrize("text, message", [
    ("<document>{{WHOLE_DOCUMENT}}</document>\n{{CHUNK_CONTENT}}", r"p.txt:1: text before the first"),
    ("[system]\n{{WHOLE_DOCUMENT}}", r"p.txt: no \[user\] part"),
    ("[system]\nx\n[user]\n{{CHUNK_CONTENT}}", r"p.txt: \{\{WHOLE_DOCUMENT\}\} must appear exactly once"),
    ("[system]\n{{WHOLE_DOCUMENT}}\n[user]\n{{WHOLE_DOCUMENT}} {{CHUNK_CONTENT}}", "exactly once"),
    ("[system]\n{{WHOLE_DOCUMENT}}\n[user]\nno chunk", r"\{\{CHUNK_CONTENT\}\} must appear in the \[user\]"),
    ("[system]\n{{WHOLE_DOCUMENT}}\n[user]\n{{CHUNK_CONTENT}}\n[system]\n", r"p.txt:5: a second \[system\]")])
def test_a_bad_prompt_template_is_one_clear_error(text, message):
    with pytest.raises(InputError, match=message):
        parse_prompt(text, "p.txt")


def test_identity(api_key):
    claude = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE)}
    api = {"base_url": "http://127.0.0.1:9/v1", "api_key_env": "ANTHROPIC_API_KEY",
           "model": "m1", "timeout_s": 7}
    ids = [backend_for(s).identity() for s in [
        claude, {**claude, "model": "sonnet"}, {**claude, "effort": "low"},
        {"backend": "anthropic", **api}, {"backend": "anthropic", **api, "model": "m2"},
        {"backend": "openai", **api}, {"backend": "openai", **api, "temperature": 0.5},
        {"backend": "heuristic", "language": "ko"}]]
    assert len({json.dumps(i, sort_keys=True) for i in ids}) == len(ids)
    assert ids[0] == {"backend": "claude-cli", "model": "opus", "effort": "high"}
    assert backend_for({**claude, "timeout_s": 1, "strip_env": []}).identity() == ids[0]
    assert backend_for({"backend": "openai", **api, "base_url": "http://other/v1"}).identity() == ids[5]
    for identity in ids:
        assert all(v is None or isinstance(v, (str, int, float, bool)) for v in identity.values())
        text = json.dumps(identity)
        assert "127.0.0.1" not in text and "sk-" not in text and "base_url" not in text
        assert "api_key" not in text and str(FAKE_CLAUDE) not in text


def test_each_backend_has_its_own_settings_and_a_misspelt_one_is_an_error():
    with pytest.raises(InputError, match=r"contexts.llm.backend: 'gemini' is not one of"):
        backend_for({"backend": "gemini"})
    with pytest.raises(InputError, match=r"contexts.llm.max_tokens: '9' is not of type 'integer'"):
        backend_for({"backend": "openai", "model": "m", "base_url": "http://x/v1", "max_tokens": "9"})
    with pytest.raises(InputError, match=r"contexts.llm: 'model' is a required property"):
        backend_for({"backend": "openai", "base_url": "http://x/v1"})
    with pytest.raises(InputError, match=r"Additional properties are not allowed \('modle' was unexpected\)"):
        backend_for({"backend": "claude-cli", "modle": "opus"})
    with pytest.raises(InputError, match=r"\('effort' was unexpected\)"):
        backend_for({"backend": "anthropic", "model": "m", "effort": "high"})   # claude-cli's, not the API's


# -- the registry -------------------------------------------------------------------------------

def test_the_schema_offers_the_paid_backends_of_the_registry_each_with_its_own_settings():
    llm = load_schema()["properties"]["contexts"]["properties"]["llm"]
    paid = [name for name, spec in BACKENDS.items() if spec.paid]
    assert llm["properties"]["backend"]["enum"] == ["", *paid]
    assert [b["if"]["properties"]["backend"]["const"] for b in llm["allOf"]] == ["", *paid]


def test_a_backend_added_by_its_module_and_one_registry_line_is_configured_with_its_own_settings(monkeypatch):
    """tests/fakes/echo_backend.py and the registry line: nothing in config/schema.yaml."""
    with pytest.raises(InputError, match=r"contexts.llm.backend: 'echo' is not one of"):
        completed(contexts={"llm": {"backend": "echo", "model": "e"}})
    monkeypatch.setitem(BACKENDS, ECHO.name, ECHO)          # the registry line
    assert completed(contexts={"llm": {"backend": "echo", "model": "e"}})["contexts"]["llm"] == {
        "backend": "echo", "model": "e", "max_words": 5}
    with pytest.raises(InputError, match=r"contexts.llm: 'model' is a required property"):
        completed(contexts={"llm": {"backend": "echo"}})
    with pytest.raises(InputError, match=r"\('effort' was unexpected\)"):
        completed(contexts={"llm": {"backend": "echo", "model": "e", "effort": "high"}})
    with pytest.raises(InputError, match=r"contexts.llm.max_words: 0 is less than the minimum of 1"):
        completed(contexts={"llm": {"backend": "echo", "model": "e", "max_words": 0}})


def test_every_backend_answers_under_its_registered_name():
    """The name is part of every context's identity, hence of every store key."""
    assert all(spec.cls.name == name for name, spec in BACKENDS.items())


def test_the_free_backend_is_x1s_own_never_priced_nor_offered_as_a1():
    x1 = free_context("en")
    assert x1["backend"] == FREE_BACKEND and not BACKENDS[FREE_BACKEND].paid
    assert set(x1) == {"backend", *BACKENDS[FREE_BACKEND].settings["properties"]}
    assert make_backend(x1).identity()["language"] == "en"
    with pytest.raises(InputError, match="llm backend 'heuristic' is free: it has no price"):
        priced_model(x1)
    with pytest.raises(InputError, match=r"contexts.llm.backend: 'heuristic' is not one of"):
        completed(contexts={"llm": x1})
    assert priced_model({"backend": "anthropic", "model": "claude-haiku-4-5"}) == "claude-haiku-4-5"
