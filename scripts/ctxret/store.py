"""The content-addressed store: what is expensive is computed once, ever.

Every entry lives under the sha256 of exactly what determines it. The store sits outside
results/ (configurable), so deleting results/ never repeats a paid call or a vector.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .fileio import atomic_path, canonical_json, read_json, sha256_text, write_json


def content_key(**parts: Any) -> str:
    """sha256 of the canonical JSON of everything that determines a result."""
    return sha256_text(canonical_json(parts))


class JsonStore:
    """One JSON document per key (LLM contexts): `<root>/<kind>/<ab>/<key>.json`."""

    def __init__(self, root: str | os.PathLike, kind: str):
        self.dir = Path(root) / kind

    def path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        p = self.path(key)
        return read_json(p) if p.exists() else None

    def put(self, key: str, value: Any) -> None:
        write_json(self.path(key), value)


class VectorStore:
    """Vectors packed in batches: `<root>/<kind>/<namespace>/<pack>.npz` (keys + rows).

    A pack is written atomically once its batch is computed, so a killed run keeps every
    finished batch. Packs from concurrent writers never collide (random names).
    """

    def __init__(self, root: str | os.PathLike, kind: str, namespace: str):
        self.dir = Path(root) / kind / namespace

    def load(self, wanted: Iterable[str]) -> dict[str, np.ndarray]:
        """The stored vectors among `wanted`, by key."""
        wanted = set(wanted)
        found: dict[str, np.ndarray] = {}
        if not self.dir.exists() or not wanted:
            return found
        for pack in sorted(self.dir.glob("*.npz")):
            with np.load(pack) as data:
                keys = data["keys"]
                rows = [i for i, k in enumerate(keys) if k in wanted and k not in found]
                if rows:
                    vectors = data["vectors"]
                    for i in rows:
                        found[str(keys[i])] = vectors[i]
        return found

    def save(self, keys: list[str], vectors: np.ndarray) -> None:
        if not keys:
            return
        name = f"{secrets.token_hex(8)}.npz"
        with atomic_path(self.dir / name) as tmp:
            with open(tmp, "wb") as f:
                np.savez(f, keys=np.array(keys), vectors=np.asarray(vectors, dtype=np.float32))


class JsonPackStore:
    """Small JSON values (token lists) packed like vectors: `<root>/<kind>/<namespace>/<pack>.json`."""

    def __init__(self, root: str | os.PathLike, kind: str, namespace: str):
        self.dir = Path(root) / kind / namespace

    def load(self, wanted: Iterable[str]) -> dict[str, Any]:
        wanted = set(wanted)
        found: dict[str, Any] = {}
        if self.dir.exists() and wanted:
            for pack in sorted(self.dir.glob("*.json")):
                found.update((k, v) for k, v in read_json(pack).items() if k in wanted and k not in found)
        return found

    def save(self, values: dict[str, Any]) -> None:
        if values:
            write_json(self.dir / f"{secrets.token_hex(8)}.json", values)


def namespace_of(settings: dict) -> str:
    """A short directory name for one model configuration (the full key covers it too)."""
    return content_key(**settings)[:16]
