"""Running a stage: its summary goes to stdout and to the rule's log; errors are one line."""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, TextIO

from ctxret import secrets
from ctxret.errors import InputError, filesystem_line
from ctxret.runtime import output_records


def jobs_import_from(scripts: str) -> None:
    """Every job of this run imports the package from `scripts` (the checkout being run):
    PYTHONPATH goes before a venv's own paths, so a venv shared by several checkouts never
    runs another checkout's code."""
    os.environ["PYTHONPATH"] = os.pathsep.join([scripts, *filter(None, [os.environ.get("PYTHONPATH")])])


class _Tee:
    """Writes to every stream, each known key redacted."""

    def __init__(self, *streams: TextIO):
        self.streams = streams

    def write(self, text: str) -> int:
        for s in self.streams:
            s.write(secrets.redact(text))
            s.flush()
        return len(text)

    def flush(self) -> None:
        for s in self.streams:
            s.flush()


def run_logged(func: Callable[[], None], log: str | None) -> None:
    """Call `func` with stdout copied to `log`; an InputError, a full disk or a folder it may not
    write exits 1 with one line (in both, every known key redacted)."""
    log_file = None
    if log:
        Path(log).parent.mkdir(parents=True, exist_ok=True)
        log_file = open(log, "w", encoding="utf-8")
    streams = (sys.stdout,) + ((log_file,) if log_file else ())
    try:
        with contextlib.redirect_stdout(_Tee(*streams)):
            func()
    except (InputError, OSError) as e:
        line = str(e) if isinstance(e, InputError) else filesystem_line(e)
        if line is None:
            raise
        message = secrets.redact(f"error: {line}\n")
        sys.stderr.write(message)
        if log_file:
            with contextlib.suppress(OSError):   # a full disk may refuse the log its line
                log_file.write(message)
                log_file.close()
        sys.exit(1)
    if log_file:
        log_file.close()


def job_params(smk) -> SimpleNamespace:
    """The rule's params, and `store`, the store's place, from the workflow's config: where the
    store lives changes no result, so it is no param (a param is a rerun trigger)."""
    return SimpleNamespace(**dict(smk.params.items()), store=smk.config["store"])


def snakemake_stage(smk, func: Callable[..., None]) -> None:
    """Entry for `script:` files: func(input=..., output=..., params=..., threads=..., resources=...).
    The files it reads are checked against what their producers wrote; what it writes is recorded."""
    log = smk.log[0] if len(smk.log) else None
    results = smk.config["results"]
    secrets.keep_keys_of(smk.config)

    def job() -> None:
        output_records.verify(results, smk.input)
        output_records.forget(results, smk.output)
        func(input=smk.input, output=smk.output, params=job_params(smk), threads=smk.threads,
             resources=smk.resources)
        output_records.record(results, smk.output, smk.rule)

    run_logged(job, log)


def run_rule(smk, stage: dict) -> None:
    """The bottom of a stage module, run by its rules' `script:`: the function named after the rule."""
    snakemake_stage(smk, stage[smk.rule])
