"""What each stage wrote: the sha256, size and time of every output file, recorded by the job that
wrote it (`<results>/logs/written/<path under results>.json`), so that a file changed or cut after
it was written is never read as if it were its producer's. Snakemake compares times, not content:
a file cut with its time kept, or cut after its readers ran, would be read in silence.

Two checks, both against the record: every job checks the files it reads before reading them (the
sha256: one line naming the file, and the next run writes it again); and the workflow, as it is
read, checks every recorded file's size and time (a stat each; the sha256 only of a file whose
time moved) and moves a damaged one aside, so that its producer writes it again before anything
reads it (rules/common.smk: `rerun_damaged`). A result the run names that has no record (the record
deleted, the file put there by hand) cannot be checked: it is moved aside too. (A file a person edits
in results/, a review file, has no record and is read as it is.)
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable, Iterator

from ctxret.errors import InputError
from ctxret.fileio import sha256_file, write_json
from ctxret.retrieval.shard_records import contents_path, shard_problem
from ctxret.store import quarantine

RECORDS = Path("logs") / "written"


def record_path(results: str, path: str) -> Path | None:
    """Where the record of `path` lives, or None for a file outside `results`."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(results))
    return None if rel.startswith("..") else Path(results) / RECORDS / f"{rel}.json"


def _files(paths: Iterable[str]) -> list[str]:
    return [str(p) for p in paths if os.path.isfile(p)]


def forget(results: str, outputs: Iterable[str]) -> None:
    """Drop the records of a job's outputs before it writes them (a job killed half-way leaves
    no record that its new files would contradict)."""
    for path in outputs:
        record = record_path(results, str(path))
        if record and record.exists():
            record.unlink()


def record(results: str, outputs: Iterable[str], rule: str) -> None:
    """Record every output file the job `rule` wrote."""
    for path in _files(outputs):
        where = record_path(results, path)
        if where:
            stat = os.stat(path)
            write_json(where, {"rule": rule, "sha256": sha256_file(path), "size": stat.st_size,
                               "mtime_ns": stat.st_mtime_ns})


def _read(where: Path) -> dict | None:
    try:
        return json.loads(where.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None   # no record (or one cut short itself): nothing to compare with


def _mismatch(path: str, rec: dict, sha: str) -> str:
    return (f"{path}: does not match what {rec['rule']} wrote (sha256 {sha[:12]}…, "
            f"{os.path.getsize(path):,} bytes; expected {rec['sha256'][:12]}…, {rec['size']:,} bytes): "
            f"it was changed or cut after it was written")


def verify(results: str, inputs: Iterable[str]) -> None:
    """Check every recorded input against its sha256 before a job reads it. A mismatch raises
    InputError naming the file, and marks the record so that the next run writes the file again."""
    for path in _files(inputs):
        where = record_path(results, path)
        rec = where and _read(where)
        if not rec:
            continue
        sha = sha256_file(path)
        if sha != rec["sha256"]:
            write_json(where, {**rec, "mtime_ns": None})    # the next run's check hashes it, finds it
            raise InputError(f"{_mismatch(path, rec, sha)}; run again: {rec['rule']} writes it again")


def damaged(results: str) -> Iterator[tuple[str, str]]:
    """(file, what is wrong) for every recorded file that is no longer what its producer wrote: a
    size that differs, or a time that moved and a sha256 that differs. A file whose time alone
    moved (touched) gets its record's time updated, so it is hashed once."""
    root = Path(results) / RECORDS
    if not root.is_dir():
        return
    for where in sorted(root.rglob("*.json")):
        rec = _read(where)
        path = f"{results}/{where.relative_to(root).with_suffix('').as_posix()}"  # as the rules spell it
        if not rec or not os.path.isfile(path):
            continue                                         # gone: Snakemake writes it again
        stat = os.stat(path)
        if stat.st_size == rec["size"] and stat.st_mtime_ns == rec["mtime_ns"]:
            continue
        sha = sha256_file(path)
        if sha == rec["sha256"]:
            write_json(where, {**rec, "mtime_ns": stat.st_mtime_ns})
        elif _read(where) == rec:                            # not rewritten by its job meanwhile
            yield path, _mismatch(path, rec, sha) + f"; {rec['rule']} writes it again"


def damaged_shards(results: str) -> Iterator[tuple[str, str, list[str]]]:
    """(index manifest, what is wrong, what to move aside) for every embedded Qdrant shard that is
    no longer what its index job built (a file added, gone, or of another size, time and sha256)."""
    root = Path(results) / RECORDS
    for where in sorted(root.rglob("*.json")) if root.is_dir() else []:
        rec = _read(where)
        manifest = f"{results}/{where.relative_to(root).with_suffix('').as_posix()}"
        if not rec or rec.get("rule") != "index" or not manifest.endswith(".json") or not os.path.isfile(manifest):
            continue
        shard = (_read(Path(manifest)) or {}).get("shard")
        problem = shard and os.path.isdir(shard) and shard_problem(shard, quick=True)
        if problem:
            line = f"{problem}: the Qdrant shard was changed after the index built it; the index builds it again"
            yield manifest, line, [manifest, shard, str(contents_path(shard))]


def unrecorded(results: str, outputs: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(file, what is wrong) for every file of `outputs` in `results` that exists without its record."""
    for path in _files(outputs):
        where = record_path(results, path)
        if where is not None and not _read(where):
            yield path, (f"{path}: no record of the job that wrote it (logs/written/): it cannot be checked; "
                         "its job writes it again")


def set_aside_damaged(results: str, dry_run: bool, outputs: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(file, one line) for every damaged result, and every file of `outputs` without its record,
    moved to `<results>/quarantine/` (the job that wrote it then runs again; for a damaged shard,
    its index manifest and the shard); a dry run moves nothing and says what a run would do."""
    found = [(path, line, [path]) for path, line in [*damaged(results), *unrecorded(results, outputs)]]
    found += list(damaged_shards(results))
    out = []
    for path, line, moved in found:
        if dry_run:
            out.append((path, f"{line} (a run moves it to {results}/quarantine/ first)"))
        else:
            places = [quarantine(Path(p), Path(results)) for p in moved if os.path.exists(p)]
            out.append((path, f"{line}; moved to {', '.join(map(str, places))}"))
    return out
