"""report: the bundled offline HTML report of a finished run, for the config that ran it.

    python -m ctxret.report [--configfile=my-experiment.yaml]     (make report CONFIG=my-experiment.yaml)
    python -m ctxret.report --results [--configfile=...]          prints the run's results folder

It reads the same config files as the run (the demo's config/config.yaml without one), finds the
results folder they name and has Snakemake bundle that run's pages into <results>/report.html.
A run that has not finished yet is one line saying which command finishes it.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .errors import InputError
from .schema import complete, read_configs

CHECKOUT = Path(__file__).resolve().parents[2]
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


def main() -> None:
    from .stage import run_logged
    args = sys.argv[1:]
    if "--results" in args:
        run_logged(lambda: print(results_of(config_files(args))), None)
    else:
        run_logged(lambda: print(f"report: {bundle(config_files(args))} (one self-contained file, offline)"), None)


if __name__ == "__main__":
    main()
