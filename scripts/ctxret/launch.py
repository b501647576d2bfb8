"""`python -m ctxret <snakemake arguments>`: the workflow, as `make run` and `make preregister` run it,
once every --configfile is a file that parses: Snakemake reads them in its own command line, before
the workflow, and stops on a missing or malformed one with its own traceback."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from .errors import InputError
from .schema import read_config


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


def main(args: list[str]) -> int:
    problem = configfile_problem(args)
    if problem:
        print(problem, file=sys.stderr)
        return 1
    os.execv(sys.executable, [sys.executable, "-m", "snakemake", *args])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
