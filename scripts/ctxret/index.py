"""index: one Qdrant collection per variant — a named dense vector per model, sparse `bm25`.

The manifest (points, vector config, input sha256) is the file Snakemake tracks. A collection
whose inputs did not change is not rebuilt.
"""
from __future__ import annotations

import numpy as np

from .bm25 import KiwiTokenizer, build_index, doc_vectors
from .fileio import canonical_json, read_json, read_jsonl, sha256_file, sha256_text, write_json
from .qdrant import open_client

BATCH = 256


def build_collection(client, name: str, rows: list[dict], dense: dict[str, np.ndarray],
                     sparse: list[tuple[list[int], list[float]]]) -> None:
    from qdrant_client import models
    if client.collection_exists(name):
        client.delete_collection(name)
    client.create_collection(
        name,
        vectors_config={m: models.VectorParams(size=int(v.shape[1]), distance=models.Distance.COSINE)
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


def run(input, output, params, **_) -> None:
    variant = params.variant
    name = f"v_{variant}"
    rows = read_jsonl(input.variant)
    models = list(params.models)
    dense = {m: np.load(p) for m, p in zip(models, input.emb)}
    for m, v in dense.items():
        if v.shape[0] != len(rows):
            raise ValueError(f"{m}: {v.shape[0]} vectors for {len(rows)} chunks")
    tokenizer = KiwiTokenizer(list(params.bm25["pos"]), bool(params.bm25["lowercase"]))
    tokens = tokenizer.many([r["text"] for r in rows])
    _, vocab, matrix = build_index(tokens, float(params.bm25["k1"]), float(params.bm25["b"]))
    inputs = {str(p): sha256_file(p) for p in [input.variant, *input.emb]}
    fingerprint = sha256_text(canonical_json({"inputs": inputs, "bm25": dict(params.bm25),
                                              "tokenizer": tokenizer.describe(), "vocab": vocab}))
    stamp = f"{params.qdrant_path}.fingerprint"
    with open_client(path=params.qdrant_path, url=params.qdrant_url or None,
                     api_key_env=params.api_key_env) as client:
        fresh = (not params.qdrant_url and client.collection_exists(name)
                 and _read_stamp(stamp) == fingerprint)
        if not fresh:
            build_collection(client, name, rows, dense, doc_vectors(matrix))
        points = client.count(name, exact=True).count
    if not params.qdrant_url:
        with open(stamp, "w") as f:
            f.write(fingerprint)
    write_json(output.vocab, {"tokenizer": tokenizer.describe(), "k1": params.bm25["k1"],
                              "b": params.bm25["b"], "vocab": vocab})
    write_json(output.manifest, {
        "collection": name, "points": points, "fingerprint": fingerprint,
        "dense": {m: {"size": int(v.shape[1]), "distance": "Cosine"} for m, v in dense.items()},
        "sparse": {"bm25": {"vocabulary": len(vocab)}}, "inputs": inputs,
        "tokenizer": tokenizer.describe(), "server": bool(params.qdrant_url)})
    print(f"{name}: points {points}, dense {list(dense)}, bm25 vocabulary {len(vocab)}, "
          f"{'kept (inputs unchanged)' if fresh else 'built'}")


def _read_stamp(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read().strip()
    except FileNotFoundError:
        return None

