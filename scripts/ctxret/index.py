"""index: one Qdrant collection per variant — a named dense vector per model, sparse `bm25`.

The manifest (points, vector config, input sha256) is the file Snakemake tracks. A collection
whose inputs did not change is not rebuilt.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from .bm25 import build_index, doc_vectors, make_tokenizer
from .fileio import atomic_path, canonical_json, read_jsonl, sha256_file, sha256_text, write_json, write_text
from .errors import InputError
from .qdrant import open_client, path_lock

BATCH = 256
FORMAT = 2  # bump when the collection layout changes: part of the fingerprint


def distance_for(vectors: np.ndarray) -> str:
    """Dot for unit vectors (the same ranking as cosine, without re-normalising every vector on
    every query in embedded Qdrant), cosine otherwise."""
    norms = np.linalg.norm(vectors, axis=1)
    return "Dot" if len(norms) and np.allclose(norms, 1.0, atol=1e-3) else "Cosine"


def build_collection(client, name: str, rows: list[dict], dense: dict[str, np.ndarray],
                     sparse: list[tuple[list[int], list[float]]]) -> None:
    from qdrant_client import models
    if client.collection_exists(name):
        client.delete_collection(name)
    client.create_collection(
        name,
        vectors_config={m: models.VectorParams(size=int(v.shape[1]), distance=models.Distance(distance_for(v)))
                        for m, v in dense.items()},
        sparse_vectors_config={"bm25": models.SparseVectorParams()})
    for start in range(0, len(rows), BATCH):
        points = []
        for i in range(start, min(start + BATCH, len(rows))):
            vector = {m: v[i].tolist() for m, v in dense.items()}
            ids, vals = sparse[i]
            vector["bm25"] = models.SparseVector(indices=ids, values=vals)
            points.append(models.PointStruct(id=i, vector=vector,
                                             payload={"chunk_id": rows[i]["chunk_id"], "slug": rows[i]["slug"]}))
        client.upsert(name, points)


def run(input, output, params, threads=1, **_) -> None:
    variant = params.variant
    name = f"v_{variant}"
    rows = read_jsonl(input.variant)
    models = list(params.models)
    dense = {m: np.load(p) for m, p in zip(models, input.emb)}
    for m, v in dense.items():
        if v.shape[0] != len(rows):
            raise InputError(f"{input.variant}: {len(rows)} chunks but {v.shape[0]} {m} vectors")
    tokenizer = make_tokenizer(dict(params.bm25), threads)
    tokens, analysed = tokenizer.cached_many([r["text"] for r in rows], params.store)
    _, vocab, matrix = build_index(tokens, float(params.bm25["k1"]), float(params.bm25["b"]))
    inputs = {str(p): sha256_file(p) for p in [input.variant, *input.emb]}
    scoring = {k: v for k, v in dict(params.bm25).items() if k != "threads"}
    fingerprint = sha256_text(canonical_json({"format": FORMAT, "inputs": inputs, "bm25": scoring,
                                              "tokenizer": tokenizer.describe(), "vocab": vocab}))
    sparse = doc_vectors(matrix)
    if params.qdrant_url:
        with open_client(url=params.qdrant_url, api_key_env=params.api_key_env) as client:
            build_collection(client, name, rows, dense, sparse)
            points = client.count(name, exact=True).count
        built = True
    else:
        built = build_embedded(params.qdrant_path, name, fingerprint, rows, dense, sparse)
        with open_client(path=params.qdrant_path) as client:
            points = client.count(name, exact=True).count
    write_json(output.vocab, {"tokenizer": tokenizer.describe(), "k1": params.bm25["k1"],
                              "b": params.bm25["b"], "vocab": vocab,
                              "chunk_ids": [r["chunk_id"] for r in rows]})
    write_sparse(output.matrix, matrix)
    write_json(output.manifest, {
        "collection": name, "points": points, "fingerprint": fingerprint,
        "dense": {m: {"size": int(v.shape[1]), "distance": distance_for(v)} for m, v in dense.items()},
        "sparse": {"bm25": {"vocabulary": len(vocab)}}, "inputs": inputs,
        "tokenizer": tokenizer.describe(), "server": bool(params.qdrant_url)})
    print(f"{name}: points {points}, dense {list(dense)}, bm25 vocabulary {len(vocab)}, analyser "
          f"{params.bm25['analyser']} (texts analysed now {analysed}, the rest from the store), "
          f"{'built' if built else 'kept (inputs unchanged)'}")


def write_sparse(path: str, matrix) -> None:
    import scipy.sparse as sp
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            sp.save_npz(f, matrix.tocsr())


def build_embedded(path: str, name: str, fingerprint: str, rows, dense, sparse) -> bool:
    """Build an embedded collection in scratch space and move it into place; False when the
    collection at `path` was built from the same inputs (kept as is), True after a build.

    Embedded Qdrant commits every point to SQLite on its own; on a real disk that is an fsync
    per point, so the build happens on scratch space (tmpfs where there is one) and the finished
    directory replaces the old one, which also means no half-built collection is ever visible.
    """
    stamp = Path(f"{path}.fingerprint")
    if Path(path).exists() and stamp.exists() and stamp.read_text() == fingerprint:
        return False
    scratch = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    build = tempfile.mkdtemp(prefix="ctxret-qdrant-", dir=scratch)
    try:
        with open_client(path=build) as client:
            build_collection(client, name, rows, dense, sparse)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        staged = tempfile.mkdtemp(prefix=f".{Path(path).name}.", dir=Path(path).parent)
        shutil.rmtree(staged)
        shutil.copytree(build, staged)
        with path_lock(path):
            if Path(path).exists():
                shutil.rmtree(path)
            os.replace(staged, path)
            write_text(stamp, fingerprint)
    finally:
        shutil.rmtree(build, ignore_errors=True)
    return True
