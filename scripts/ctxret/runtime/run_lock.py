"""One run at a time in a results directory, whatever checkout it comes from (Snakemake's own lock
lives in each checkout's .snakemake/, so two checkouts writing one absolute `results:` never see
each other's). A run's main process holds an exclusive lock on `<results>/logs/run.lock` while
it lives, with who holds it written inside; a second run is refused with one line naming the
holder. The kernel drops the lock when the process dies: a killed run leaves none behind.
"""
from __future__ import annotations

import fcntl
import os
import socket
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from ctxret.errors import InputError

LOCK = Path("logs") / "run.lock"


def hold(results: str, checkout: str) -> IO:
    """The open, locked file (keep it open for the run's life); InputError when another run holds it."""
    path = Path(results) / LOCK
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+", encoding="utf-8")
    except OSError as e:   # a read-only disk, a file where a folder goes
        raise InputError(f"results {results}: cannot write its run lock {path} ({e.strerror or e}); give results "
                         f"a folder this run can write") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another run"
        handle.close()
        raise InputError(f"results {results} is being written by {holder}: wait for that run to end, or give "
                         f"this one results of its own") from None
    handle.seek(0)
    handle.truncate()
    since = datetime.now(timezone.utc).isoformat(timespec="seconds")
    handle.write(f"the run of pid {os.getpid()} on {socket.gethostname()} from the checkout {checkout} (since {since})\n")
    handle.flush()
    return handle


def held(results: str) -> bool:
    """Whether a run holds `results` now (its main process, between its start and its end)."""
    path = Path(results) / LOCK
    if not path.exists():
        return False
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False
