"""What the index wrote into a Qdrant shard, recorded beside it (`<shard>.contents.json`: each
file's size, time and sha256) and checked: by every search before it reads a copy, and by the
workflow as each run starts (ctxret.runtime.output_records). Reads no Qdrant library."""
from __future__ import annotations

import json
import os
from pathlib import Path

from ctxret.fileio import sha256_file, write_json


def contents_path(path: str) -> Path:
    """Where the index records what a shard it built holds: `<shard>.contents.json`."""
    return Path(f"{path}.contents.json")


def shard_files(path: str) -> list[str]:
    """The files under the shard at `path`, relative to it, sorted."""
    return sorted(os.path.relpath(os.path.join(root, name), path) for root, _, files in os.walk(path) for name in files)


def shard_contents(path: str) -> dict[str, list]:
    """{file under the shard: [size, mtime_ns, sha256]}: what the index built, recorded beside it."""
    out = {}
    for rel in shard_files(path):
        full = os.path.join(path, rel)
        stat = os.stat(full)
        out[rel] = [stat.st_size, stat.st_mtime_ns, sha256_file(full)]
    return out


def record_contents(path: str) -> None:
    write_json(contents_path(path), shard_contents(path))


def recorded_contents(path: str) -> dict[str, list] | None:
    try:
        return json.loads(contents_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def forget_times(path: str) -> None:
    """The next quick check hashes every file of the shard at `path` (a change found by a full one
    that kept sizes and times)."""
    recorded = recorded_contents(path)
    if recorded:
        write_json(contents_path(path), {rel: [size, None, sha] for rel, (size, _, sha) in recorded.items()})


def shard_problem(path: str, copy: str | None = None, quick: bool = False) -> str | None:
    """What differs between the shard at `path` (or its `copy`) and what the index recorded, else
    None (a shard without a record: nothing to compare with). `quick`: a file whose size and time
    are as recorded is taken as is (the check as the workflow starts: a stat a file)."""
    recorded = recorded_contents(path)
    if recorded is None:
        return None
    here = copy or path
    found = set(shard_files(here))
    if found != set(recorded):
        gone, extra = sorted(set(recorded) - found), sorted(found - set(recorded))
        return f"{path}: files {'missing: ' + ', '.join(gone[:3]) if gone else 'added: ' + ', '.join(extra[:3])}"
    for rel, (size, mtime_ns, sha) in recorded.items():
        stat = os.stat(os.path.join(here, rel))
        if quick and (stat.st_size, stat.st_mtime_ns) == (size, mtime_ns):
            continue
        if stat.st_size != size or sha256_file(os.path.join(here, rel)) != sha:
            differs = f"{stat.st_size:,} bytes, expected {size:,}" if stat.st_size != size else "its sha256 differs"
            return f"{path}/{rel}: not what the index wrote ({differs})"
    return None
