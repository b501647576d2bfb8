"""report: the bundled offline HTML report of a finished run, for the config that ran it.

    python -m ctxret.report [--configfile=my-experiment.yaml]     (make report CONFIG=my-experiment.yaml)
    python -m ctxret.report --results [--configfile=...]          prints the run's results folder
    python -m ctxret.report --verdicts [--configfile=...]         where the run's files are, then its verdicts

It reads the same config files as the run (the demo's config/config.yaml without one), finds the
results folder they name and has Snakemake bundle that run's pages into <results>/report.html.
A run that has not finished yet is one line saying which command finishes it.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ctxret.config.schema import CHECKOUT, complete, read_configs
from ctxret.errors import InputError
from ctxret.fileio import read_json

DEMO = CHECKOUT / "config" / "config.yaml"


def config_files(args: list[str]) -> list[str]:
    return [a.split("=", 1)[1] for a in args if a.startswith("--configfile=")]


def results_of(files: list[str]) -> Path:
    """The results folder the config files name (later files win, key by key)."""
    files = files or [str(DEMO)]
    return Path(complete(read_configs(files), tuple(files))["results"])


def bundle(files: list[str]) -> Path:
    results = results_of(files)
    summary = results / "report" / "summary.html"
    given = "".join(f" CONFIG={f}" for f in files)
    if not summary.is_file():
        raise InputError(f"{summary}: not there yet; finish the run first (make run{given})")
    target = results / "report.html"
    proc = subprocess.run([str(Path(sys.executable).with_name("snakemake")), "--report", str(target),
                           *(f"--configfile={f}" for f in files)], capture_output=True, text=True)
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        raise InputError(f"snakemake --report {target}: {lines[-1] if lines else 'failed'}")
    return target


def verdicts(files: list[str]) -> list[str]:
    """What `make run` ends with: where the verdicts, scores and page are, then each primary
    comparison's verdict in one sentence (pairs.json's answers, in the report's language)."""
    results = results_of(files)
    pairs = results / "pairs.json"
    given = "".join(f" CONFIG={f}" for f in files)
    if not pairs.is_file():
        raise InputError(f"{pairs}: not there yet; finish the run first (make run{given})")
    return ["", f"verdict: {results}/pairs.md; scores: {results}/score.md; the page: make report{given}",
            *read_json(pairs)["answers"]]


def main() -> None:
    from ctxret.runtime.stage_runner import run_logged
    args = sys.argv[1:]
    if "--results" in args:
        run_logged(lambda: print(results_of(config_files(args))), None)
    elif "--verdicts" in args:
        run_logged(lambda: print("\n".join(verdicts(config_files(args)))), None)
    else:
        run_logged(lambda: print(f"report: {bundle(config_files(args))} (one self-contained file, offline)"), None)


if __name__ == "__main__":
    main()
