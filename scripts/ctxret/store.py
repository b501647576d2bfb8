"""The content-addressed store: what is expensive is computed once, ever.

Every entry lives under the sha256 of exactly what determines it. The store sits outside
results/ (configurable), so deleting results/ never repeats a paid call or a vector.
"""
from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .fileio import canonical_json, read_json, sha256_text, write_json

LOCK_WAIT_S = 600   # how long a writer waits for another's transaction
QUERY_KEYS = 500    # keys per lookup query (SQLite's limit on parameters is 32766)


def content_key(**parts: Any) -> str:
    """sha256 of the canonical JSON of everything that determines a result."""
    return sha256_text(canonical_json(parts))


class JsonStore:
    """One JSON document per key: `<root>/<kind>/<ab>/<key>.json`. For paid LLM answers: each is
    on disk, whole, the moment it is paid, whatever becomes of the run or of other writers."""

    def __init__(self, root: str | os.PathLike, kind: str):
        self.dir = Path(root) / kind

    def path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        p = self.path(key)
        return read_json(p) if p.exists() else None

    def put(self, key: str, value: Any) -> None:
        write_json(self.path(key), value)


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

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=LOCK_WAIT_S)
        # a rowid table: values of kilobytes stay out of the key index (WITHOUT ROWID would put
        # them in its pages: twice the size, 3x slower lookups)
        db.execute("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
        return db

    def get_many(self, wanted: Iterable[str]) -> dict[str, bytes]:
        wanted = list(dict.fromkeys(wanted))
        found: dict[str, bytes] = {}
        if not wanted or not self.path.exists():
            return found
        with contextlib.closing(self._connect()) as db:
            for i in range(0, len(wanted), QUERY_KEYS):
                part = wanted[i:i + QUERY_KEYS]
                found.update(db.execute(f"SELECT key, value FROM entries WHERE key IN "
                                        f"({','.join('?' * len(part))})", part))
        return found

    def put_many(self, values: dict[str, bytes]) -> None:
        if not values:
            return
        with contextlib.closing(self._connect()) as db, db:
            db.executemany("INSERT OR IGNORE INTO entries (key, value) VALUES (?, ?)", values.items())

    def count(self) -> int:
        if not self.path.exists():
            return 0
        with contextlib.closing(self._connect()) as db:
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
