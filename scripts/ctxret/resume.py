"""resume: run again after a killed run, in one command.

    python -m ctxret.resume --cores 4 --configfile my-experiment.yaml     (make resume: the demo)

A killed Snakemake (kill -9, a closed laptop, a lost session) leaves its lock behind, and the
same command then stops with "Directory cannot be locked". This one first makes sure nothing
of an earlier run is alive in the working directory (the driver or a job it started: both run
there), removes a lock left behind, then runs `snakemake <arguments> --rerun-incomplete`.
While a process of a run is alive it refuses, naming it, and changes nothing.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psutil

from ctxret.runtime.launch import configfile_problem, supervise

LOCKS = Path(".snakemake") / "locks"


def workdir_of(args: list[str]) -> Path:
    """The working directory Snakemake will use: --directory / -d, else this one."""
    for i, arg in enumerate(args):
        if arg in ("--directory", "-d") and i + 1 < len(args):
            return Path(args[i + 1]).resolve()
        if arg.startswith("--directory="):
            return Path(arg.split("=", 1)[1]).resolve()
    return Path.cwd().resolve()


def is_snakemake(cmdline: list[str]) -> bool:
    """A Snakemake driver (`snakemake ...`, `python -m snakemake ...`) or one of its jobs."""
    return any(Path(arg).name == "snakemake" for arg in cmdline[:3]) or \
        any(f"{os.sep}.snakemake{os.sep}" in arg or arg.startswith(".snakemake") for arg in cmdline)


def live_runs(workdir: Path) -> list[psutil.Process]:
    """Processes of a Snakemake run in `workdir`, this command and its callers aside."""
    me = psutil.Process()
    ours = {me.pid, *(p.pid for p in me.parents())}
    found = []
    for proc in psutil.process_iter(["cmdline", "cwd"]):
        cwd, cmdline = proc.info["cwd"], proc.info["cmdline"] or []
        if proc.pid not in ours and cwd and Path(cwd) == workdir and is_snakemake(cmdline):
            found.append(proc)
    return found


def main(args: list[str]) -> int:
    problem = configfile_problem(args)
    if problem:
        print(problem, file=sys.stderr)
        return 1
    workdir = workdir_of(args)
    alive = live_runs(workdir)
    if alive:
        print(f"error: a run is still alive in {workdir}; let it finish or end it, then resume:",
              file=sys.stderr)
        for proc in alive:
            print(f"  pid {proc.pid}: {' '.join(proc.info['cmdline'])[:200]}", file=sys.stderr)
        return 1
    snakemake = [sys.executable, "-m", "snakemake", *args]
    if any((workdir / LOCKS).glob("*")):
        print(f"resume: no run is alive in {workdir}; removing the lock the killed one left")
        unlocked = subprocess.run([*snakemake, "--unlock"])
        if unlocked.returncode != 0:
            return unlocked.returncode
    return supervise([*args, "--rerun-incomplete"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
