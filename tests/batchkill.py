"""A contexts_batch job killed with SIGKILL while its batch runs on a fake batch API (the two
batch backends' kill-and-resume tests)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JOB = """
import json, sys
from types import SimpleNamespace as NS
from ctxret.stages import contexts
io = json.loads(sys.argv[1])
contexts.contexts_batch(input=NS(**io["input"]), output=io["output"], params=NS(**io["params"]))
"""


def killed_while_polling(server, io: dict) -> str:
    """Runs the job `io` in a process of its own, kills it once its batch id is in the store (it is
    polling then) and returns what it printed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "scripts")}
    proc = subprocess.Popen([sys.executable, "-c", JOB, json.dumps(io)], start_new_session=True, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log = Path(io["params"]["store"]) / "ctx-batches"
    deadline = time.time() + 60
    while not (server.batches and any(json.loads(p.read_text())["batch_id"] for p in log.glob("*.json"))):
        assert time.time() < deadline and proc.poll() is None, proc.stdout.read() if proc.poll() else "timeout"
        time.sleep(0.1)
    time.sleep(0.5)                                   # polling now
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return proc.stdout.read()
