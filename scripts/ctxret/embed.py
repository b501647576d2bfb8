"""embed: texts -> vectors through the content-addressed vector store.

Row i of `<variant>-<model>.npy` is chunk i of the variant file. Only texts missing from the
store are computed, shortest first, and flushed to the store every `flush_every` texts, so a
killed run resumes where it stopped and a finished text is never embedded again.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from .fileio import canonical_json, read_jsonl, sha256_text, write_json, write_npy
from .models import Kind, load_encoder, model_identity
from .store import VectorStore, content_key, namespace_of


def embed_texts(texts: list[str], kind: Kind, settings: dict, store_root: str, threads: int,
                flush_every: int, offline: bool) -> tuple[np.ndarray, int]:
    """(matrix in input order, number of vectors computed now)."""
    ident = dict(model_identity(settings), kind=kind)
    store = VectorStore(store_root, "emb", namespace_of(ident))
    keys = [content_key(model=ident, text=t) for t in texts]
    found = store.load(keys)
    misses = sorted({k: t for k, t in zip(keys, texts) if k not in found}.items(), key=lambda kt: len(kt[1]))
    if misses:
        encoder = load_encoder(settings, threads, offline)
        start = time.perf_counter()
        for i in range(0, len(misses), flush_every):
            batch = misses[i:i + flush_every]
            vecs = encoder.encode([t for _, t in batch], kind)
            store.save([k for k, _ in batch], vecs)
            found.update(zip((k for k, _ in batch), vecs))
            done = i + len(batch)
            rate = done / max(time.perf_counter() - start, 1e-9)
            print(f"\r  embedded {done}/{len(misses)} ({rate:.1f} texts/s)", end="", file=sys.stderr)
        print(file=sys.stderr)
    if not texts:
        return np.zeros((0, 0), np.float32), 0
    return np.stack([found[k] for k in keys]).astype(np.float32), len(misses)


def sidecar(settings: dict, ids: list[str], texts: list[str], matrix: np.ndarray) -> dict:
    return {"model": settings["model"], "backend": settings["backend"],
            "revision": settings.get("revision") or None, "dims": int(matrix.shape[1]),
            "count": len(ids), "ids": ids, "texts_sha256": sha256_text(canonical_json(texts))}


def _write(output, settings, ids, texts, matrix) -> None:
    write_npy(output.npy, matrix)
    write_json(output.meta, sidecar(settings, ids, texts, matrix))


def run_chunks(input, output, params, threads=1, **_) -> None:
    rows = read_jsonl(input.variant)
    texts = [r["text"] for r in rows]
    matrix, computed = embed_texts(texts, "passage", dict(params.model), params.store, threads,
                                   int(params.flush_every), bool(params.offline))
    _write(output, params.model, [r["chunk_id"] for r in rows], texts, matrix)
    print(f"{params.variant} {params.model_name}: chunks {len(rows)}, computed {computed}, "
          f"from store {len(rows) - computed}, dims {matrix.shape[1]}")


def run_questions(input, output, params, threads=1, **_) -> None:
    from .questions import load_question_sets
    questions = load_question_sets(dict(params.sets))
    texts = [q["question"] for q in questions]
    matrix, computed = embed_texts(texts, "query", dict(params.model), params.store, threads,
                                   int(params.flush_every), bool(params.offline))
    _write(output, params.model, [q["id"] for q in questions], texts, matrix)
    print(f"questions {params.model_name}: {len(texts)}, computed {computed}")
