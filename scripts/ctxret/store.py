"""The content-addressed store: what is expensive is computed once, ever.

Every entry lives under the sha256 of exactly what determines it. The store sits outside
results/ (configurable), so deleting results/ never repeats a paid call or a vector.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

from ctxret.errors import InputError
from ctxret.fileio import canonical_json, read_json, sha256_text, write_json

LOCK_WAIT_S = 600   # how long a writer waits for another's transaction
QUERY_KEYS = 500    # keys per lookup query (SQLite's limit on parameters is 32766)
AGAIN = {"ctx": "it is paid for again", "ctx-pending": "it is paid for again",
         "ctx-failed": "its earlier failed attempts are forgotten"}   # what becomes of a kind's damaged entry


def content_key(**parts: Any) -> str:
    """sha256 of the canonical JSON of everything that determines a result."""
    return sha256_text(canonical_json(parts))


@contextlib.contextmanager
def claimed(root: str | os.PathLike, kind: str, key: str, waiting: Callable[[], None] = lambda: None):
    """Hold the claim on `key` of `kind` while computing what the store lacks of it: another run
    sharing the store that claims the same key waits (`waiting()` says so once), then finds it in
    the store. A claim is an exclusive lock on `<root>/claims/<kind>/<key>.lock`; the kernel, or
    an NFS server's lease, drops it when its process dies, so a killed run leaves no stale claim."""
    path = Path(root) / "claims" / kind / f"{key}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waiting()
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def check_writable(directory: str | os.PathLike) -> None:
    """InputError naming `directory` unless a file can be written there: checked before anything
    is paid or computed, so no answer is ever paid and then lost."""
    try:
        Path(directory).mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".writable-"):
            pass
    except OSError as e:
        raise InputError(f"store {directory} is not writable ({e.strerror}): nothing was paid or computed; "
                         f"make it writable or set store: to a directory you can write") from None


def quarantine(path: Path, root: Path) -> Path:
    """Move a damaged store file to `<root>/quarantine/<its place in the store>.<time>`."""
    moved = root / "quarantine" / path.relative_to(root)
    moved = moved.with_name(f"{moved.name}.{time.strftime('%Y%m%dT%H%M%S')}")
    moved.parent.mkdir(parents=True, exist_ok=True)
    os.replace(path, moved)
    return moved


class JsonStore:
    """One JSON document per key: `<root>/<kind>/<ab>/<key>.json`. For paid LLM answers: each is
    on disk, whole, the moment it is paid, whatever becomes of the run or of other writers."""

    def __init__(self, root: str | os.PathLike, kind: str):
        self.dir = Path(root) / kind

    def path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The value, or None: when absent, and when damaged (cut short, empty: what a power cut
        can leave), the file then moved aside to `<root>/quarantine/` with one line saying so."""
        p = self.path(key)
        if not p.exists():
            return None
        try:
            value = read_json(p)
        except (InputError, UnicodeDecodeError) as e:
            self.set_aside(key, str(e))
            return None
        if value is None:   # nothing is stored as null: read as absent, it would be computed again unsaid
            self.set_aside(key, "it holds JSON null")
        return value

    def set_aside(self, key: str, why: str) -> None:
        """Move a damaged entry to `<root>/quarantine/` with one line naming it, why, and what
        becomes of it (an answer is asked for again by the run reading it: a paid call)."""
        p = self.path(key)
        try:
            moved = quarantine(p, self.dir.parent)
        except FileNotFoundError:   # another run sharing the store set it aside first
            return
        again = AGAIN.get(self.dir.name, "it is computed again")
        print(f"store: {p} is damaged ({why}); moved to {moved}; {again}", file=sys.stderr, flush=True)

    def put(self, key: str, value: Any) -> None:
        write_json(self.path(key), value)

    def remembered(self, key: str, compute: Callable[[], Any]) -> Any:
        """The value under `key`, else `compute()`, kept there (only a cache: a store that cannot
        be written is passed over, and the next reader computes it again)."""
        found = self.get(key)
        if found is None:
            found = compute()
            with contextlib.suppress(OSError):
                self.put(key, found)
        return found


def file_states(paths) -> list[list]:
    """[path, size, mtime_ns] of each of `paths` that exists: the state a cache of what was read
    from them is keyed by (an edit that keeps both size and time is not seen)."""
    out = []
    for path in paths:
        with contextlib.suppress(OSError):
            st = os.stat(path)
            out.append([path, st.st_size, st.st_mtime_ns])
    return out


class PackStore:
    """Many small values in one SQLite database per namespace: `<root>/<kind>/<namespace>.sqlite`.

    A lookup searches the key index: its cost grows with the logarithm of the entries, not with
    how many runs or batches wrote them (benchmarks/bench_contexts.py: one run's 4,400 vectors
    among 100 runs' entries). A batch is one transaction: a killed run keeps every batch it
    committed, never half of one. Concurrent writers wait for each other through SQLite's file
    locks, so a shared store needs a filesystem whose locks work (local disks, NFSv4, Lustre
    and GPFS with locking on).
    """

    def __init__(self, root: str | os.PathLike, kind: str, namespace: str):
        self.path = Path(root) / kind / f"{namespace}.sqlite"

    @contextlib.contextmanager
    def _connect(self):
        """An open database; a damaged file is one line naming it and what to do."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with contextlib.closing(sqlite3.connect(self.path, timeout=LOCK_WAIT_S)) as db:
                # a rowid table: values of kilobytes stay out of the key index (WITHOUT ROWID
                # would put them in its pages: twice the size, 3x slower lookups)
                db.execute("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
                yield db
        except sqlite3.DatabaseError as e:
            if isinstance(e, sqlite3.OperationalError) and "locked" in str(e):
                raise
            raise InputError(f"{self.path}: {e}: this store file is damaged; move it aside (mv {self.path} "
                             f"{self.path}.damaged) and rerun: what it held is computed again") from None

    def get_many(self, wanted: Iterable[str]) -> dict[str, bytes]:
        wanted = list(dict.fromkeys(wanted))
        found: dict[str, bytes] = {}
        if not wanted or not self.path.exists():
            return found
        with self._connect() as db:
            for i in range(0, len(wanted), QUERY_KEYS):
                part = wanted[i:i + QUERY_KEYS]
                found.update(db.execute(f"SELECT key, value FROM entries WHERE key IN "
                                        f"({','.join('?' * len(part))})", part))
        return found

    def put_many(self, values: dict[str, bytes]) -> None:
        if not values:
            return
        with self._connect() as db, db:
            db.executemany("INSERT OR IGNORE INTO entries (key, value) VALUES (?, ?)", values.items())

    def count(self) -> int:
        if not self.path.exists():
            return 0
        with self._connect() as db:
            return db.execute("SELECT count(*) FROM entries").fetchone()[0]


class VectorStore(PackStore):
    """float32 vectors (embeddings, reranker scores), a batch per save."""

    def load(self, wanted: Iterable[str]) -> dict[str, np.ndarray]:
        """The stored vectors among `wanted`, by key."""
        return {k: np.frombuffer(v, dtype=np.float32) for k, v in self.get_many(wanted).items()}

    def save(self, keys: list[str], vectors: np.ndarray) -> None:
        rows = np.asarray(vectors, dtype=np.float32)
        self.put_many({k: row.tobytes() for k, row in zip(keys, rows, strict=True)})


class JsonPackStore(PackStore):
    """Small JSON values (token lists)."""

    def load(self, wanted: Iterable[str]) -> dict[str, Any]:
        return {k: json.loads(v) for k, v in self.get_many(wanted).items()}

    def save(self, values: dict[str, Any]) -> None:
        self.put_many({k: canonical_json(v).encode("utf-8") for k, v in values.items()})


def namespace_of(settings: dict) -> str:
    """A short directory name for one model configuration (the full key covers it too)."""
    return content_key(**settings)[:16]
