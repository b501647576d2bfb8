"""An LLM backend that cannot be used: one line before anything is paid; a key a server echoes
reaches no line and no file (tests/bad_inputs.py)."""
import json

import pytest
from bad_inputs import LLM, Experiment, check
from fakes.llm_servers import anthropic_server, openai_server


@pytest.mark.parametrize("case", LLM, ids=[c.name for c in LLM])
def test_a_bad_input_stops_with_one_line_and_writes_nothing(tmp_path, case):
    check(tmp_path, case)


SECRET = "sk-proj-CtxretTestKey0123456789"


@pytest.mark.parametrize("server_of, backend", [(openai_server, "openai"), (anthropic_server, "anthropic")])
def test_a_key_a_server_echoes_is_in_no_line_and_no_file(tmp_path, server_of, backend):
    """A server refusing the key with a 401 whose message repeats it: the error line names the
    variable instead of the value, and no log, record or output holds the key."""
    x = Experiment(tmp_path)
    x.env["CTXRET_TEST_KEY"] = SECRET
    with server_of() as server:
        server.fail("401-echo", n=20)
        x.set("contexts.llm", {"backend": backend, "model": "local", "api_key_env": "CTXRET_TEST_KEY",
                               "base_url": f"{server.url}/v1" if backend == "openai" else server.url})
        proc = x.run("--resources=llm_workers=1", "results/var-A1.jsonl")
    output = proc.stdout + proc.stderr
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert proc.returncode == 1 and "Traceback" not in output, output[-3000:]
    assert len(errors) == 1 and "HTTP 401: " in errors[0] and "provided: [$CTXRET_TEST_KEY]." in errors[0], \
        output[-3000:]
    assert SECRET in json.dumps(server.requests[0]["headers"])       # the key was sent, and echoed
    assert SECRET not in output
    files = [p for p in tmp_path.rglob("*") if p.is_file()]      # results, store, logs
    assert any("logs" in p.parts for p in files)
    assert [p for p in files if SECRET.encode() in p.read_bytes()] == []
