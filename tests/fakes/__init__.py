"""Stand-ins for the outside world, speaking its real protocols: `fake_claude`, HTTP servers."""
from __future__ import annotations

import os

import psutil


def live_fake_claudes(log: str | os.PathLike) -> list[int]:
    """The pids of fake_claude processes still running that log to `log` (FAKE_CLAUDE_LOG)."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if any(arg.endswith("fake_claude") for arg in proc.info["cmdline"] or []) and \
                    proc.environ().get("FAKE_CLAUDE_LOG") == str(log):
                found.append(proc.pid)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    return found
