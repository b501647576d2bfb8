"""`python -m ctxret <snakemake arguments>`: the workflow, as `make run` and `make preregister` run it,
once every --configfile is a file that parses: Snakemake reads them in its own command line, before
the workflow, and stops on a missing or malformed one with its own traceback.

Snakemake runs as a child in a process group of its own (`supervise`), so that SIGTERM, SIGINT or
SIGHUP to this driver ends the run at any moment: Snakemake's own SIGTERM handler waits for the
running jobs and takes its scheduler's lock inside the handler, so a SIGTERM landing while the
scheduler holds that lock hangs it for good, the run lock held. The driver passes SIGINT (what
Ctrl-C sends) to the group instead, and when Snakemake has not ended `GRACE_S` seconds later, or
at a second signal, kills the group and removes the lock Snakemake left (`--unlock`).

`--brief` (what `make run` and `make preregister` pass) keeps the terminal to what a reader needs
(`shown`): what the workflow says as it is read (the language found, warnings, errors), every
`error:`/`warning:` line and Snakemake error block, the last progress line and where Snakemake's
log is. Everything else is still written: each job's output in its log under <results>/logs/,
Snakemake's in .snakemake/log/.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from ctxret.config.schema import read_config
from ctxret.errors import InputError


def configfile_problem(args: list[str]) -> str | None:
    """One line for a --configfile that names no file, or a file that is not a YAML mapping, else
    None. The space form takes every word up to the next option, a target too (`--configfile
    my.yaml estimate` reads `estimate` as a second config file)."""
    files, taking = [], False
    for arg in args:
        if arg.startswith("--configfile="):
            files.append(arg.split("=", 1)[1])
        taking = arg in ("--configfile", "--configfiles") or (taking and not arg.startswith("-"))
        if taking and not arg.startswith("-"):
            files.append(arg)
    missing = next((f for f in files if not Path(f).is_file()), None)
    if missing is not None:
        return (f"error: --configfile {missing}: no such file (Snakemake reads every word after --configfile "
                f"as a config file: write --configfile=FILE, or put targets before --configfile)")
    for path in files:
        try:
            read_config(path)
        except InputError as e:
            return f"error: {e}"
    return None


# --brief: Snakemake's lines left out while the workflow is read, and those shown once it runs
SETUP = ("Using workflow specific profile", "Assuming unrestricted shared filesystem usage")
SHOWN = ("error:", "warning:", "ctxret:", "Nothing to be done", "Exiting because", "Complete log",
         "WorkflowError", "MissingInputException", "MissingOutputException", "IncompleteFilesException",
         "LockException", "Shutting down")
ERROR_BLOCK = ("Error in rule", "Error in group", "RuleException")
DONE = re.compile(r"\d+ of \d+ steps \(100%\) done")


def shown(lines) -> Iterator[str]:
    """The lines of a run's output that `--brief` shows (see the module's docstring)."""
    running = in_error = said = False
    for line in lines:
        if not running:
            running = line.startswith("Building DAG of jobs")
            if not running and not line.startswith(SETUP):
                yield line
            continue
        in_error = line.startswith(ERROR_BLOCK) or (in_error and line.strip() != "")
        continued = said and line[:1].isspace() and line.strip() != ""   # an error's or warning's own lines
        said = line.startswith(("error:", "warning:")) or continued
        if in_error or continued or line.startswith(SHOWN) or DONE.search(line):
            yield line


GRACE_S = 30   # from the first signal to the kill: Snakemake's cancel takes a few seconds
STOPPING = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def supervise(args: list[str], brief: bool = False) -> int:
    """Snakemake with `args`, its exit status; 128 + the signal when one stopped it; `brief`: its
    output through `shown` (and without its header)."""
    received: list[int] = []
    child: subprocess.Popen | None = None
    interrupted, killed = threading.Event(), threading.Event()

    def kill() -> None:
        if child is not None and child.poll() is None and not killed.is_set():
            killed.set()
            signal_group(child, signal.SIGKILL)

    def stop(signum, _frame) -> None:
        received.append(signum)
        if len(received) > 1:
            kill()
        elif child is not None:
            interrupt(child, signum)

    def interrupt(proc: subprocess.Popen, signum: int) -> None:
        if interrupted.is_set():
            return
        interrupted.set()
        print(f"ctxret: {signal.Signals(signum).name}: stopping the run (its jobs are interrupted; the same "
              f"command goes on from there)", file=sys.stderr, flush=True)
        signal_group(proc, signal.SIGINT)
        timer = threading.Timer(GRACE_S, kill)
        timer.daemon = True
        timer.start()

    for signum in STOPPING:
        signal.signal(signum, stop)
    piped = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, "text": True, "errors": "replace"} if brief else {}
    child = subprocess.Popen([sys.executable, "-m", "snakemake", *args, *(["--quiet", "host"] if brief else [])],
                             process_group=0, **piped)
    if received:   # a signal while the child was being started
        interrupt(child, received[0])
    if brief:
        for line in shown(child.stdout):
            print(line, end="", flush=True)
    status = child.wait()
    if killed.is_set():
        subprocess.run([sys.executable, "-m", "snakemake", *args, "--unlock"], check=False, capture_output=True,
                       timeout=600)
        why = "at a second signal" if len(received) > 1 else \
            f"still running {GRACE_S} s after {signal.Signals(received[0]).name}"
        print(f"ctxret: killed Snakemake and its jobs ({why}) and removed its lock; the same command goes on "
              f"from there", file=sys.stderr)
    return 128 + received[0] if received else status


def signal_group(proc: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(proc.pid, signum)
    except ProcessLookupError:   # ended meanwhile
        pass


def main(args: list[str]) -> int:
    problem = configfile_problem(args)
    if problem:
        print(problem, file=sys.stderr)
        return 1
    return supervise([a for a in args if a != "--brief"], brief="--brief" in args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
