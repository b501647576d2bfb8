"""search: exact top-k per question; fuse: hybrid runs.

Dense runs come from the variant's Qdrant collection; BM25 runs from the BM25 weight matrix the
index step stored (the same scores as bm25s and as Qdrant's `bm25` sparse vectors, without
Qdrant's slow local sparse search). Ties are broken by (score desc, chunk id); Qdrant is asked
for more than k until the k-th score is strictly above the last one fetched, so no tie is cut
arbitrarily.
"""
from __future__ import annotations

import json

import numpy as np

from .bm25 import query_vector, tokenizer_from, top_k
from .fileio import read_json, read_jsonl
from .fusion import rrf
from .qdrant import open_client
from .runs import read_run, write_run


def exact_top_k(fetch, k: int) -> list[tuple[str, float]]:
    """`fetch(limit)` -> the engine's best `limit` [(chunk_id, score)]; the top k by (score desc,
    chunk id). The fetch reaches one past k and doubles until the k-th score is strictly above
    the last one fetched (or the collection is exhausted), so a tie at rank k is decided by chunk
    id among every tied chunk, never by the engine's order."""
    limit = k + 1
    while True:
        got = fetch(limit)
        ranked = sorted(got, key=lambda cs: (-cs[1], cs[0]))
        if len(got) < limit or ranked[k - 1][1] > ranked[-1][1]:
            return ranked[:k]
        limit *= 2


def _fetcher(client, collection: str, using: str, query, remote: bool):
    from qdrant_client import models
    # embedded Qdrant is always exact (brute force); a server is asked to be
    exact = models.SearchParams(exact=True) if remote else None

    def fetch(limit: int) -> list[tuple[str, float]]:
        res = client.query_points(collection, query=query, using=using, limit=limit, with_payload=True,
                                  search_params=exact)
        return [(p.payload["chunk_id"], float(p.score)) for p in res.points]
    return fetch


def run_dense(input, output, params, **_) -> None:
    meta = read_json(input.qmeta)
    vectors = np.load(input.qemb)
    collection = read_json(input.manifest)["collection"]
    results = {}
    with open_client(path=params.qdrant_path, url=params.qdrant_url or None,
                     api_key_env=params.api_key_env) as client:
        for qid, vec in zip(meta["ids"], vectors):
            results[qid] = exact_top_k(_fetcher(client, collection, params.model, vec.tolist(),
                                                   bool(params.qdrant_url)), int(params.k))
    write_run(output.run, output.trec, params.name, results)
    print(f"{params.name}: {len(results)} questions, top {params.k}")


def run_bm25(input, output, params, **_) -> None:
    import scipy.sparse as sp
    index = read_json(input.vocab)
    matrix = sp.load_npz(input.matrix).tocsc()
    tokenizer = tokenizer_from(index["tokenizer"])
    questions = read_jsonl(input.questions)
    results, empty = {}, []
    for q, tokens in zip(questions, tokenizer.many([q["question"] for q in questions])):
        ids, counts = query_vector(tokens, index["vocab"])
        results[q["id"]] = top_k(matrix, ids, counts, index["chunk_ids"], int(params.k))
        if not results[q["id"]]:
            empty.append(q["id"])
    write_run(output.run, output.trec, params.name, results)
    print(f"{params.name}: {len(results)} questions, top {params.k}; "
          f"queries with an empty result (no known term) {len(empty)} {empty}")


def run_fuse(input, output, params, **_) -> None:
    dense, sparse = read_run(input.dense), read_run(input.bm25)
    f = dict(params.fusion)
    weights = [float(f["weights"]["dense"]), float(f["weights"]["bm25"])]
    depth = int(params.depth)
    results = {qid: rrf([dense[qid], sparse.get(qid, [])], k=float(f["k"]), rank_base=int(f["rank_base"]),
                        weights=weights, depth=depth)[:int(params.k)]
               for qid in dense}
    write_run(output.run, output.trec, params.name, results)
    print(f"{params.name}: preset {params.preset} {json.dumps(f, ensure_ascii=False)}, the top {depth} of each "
          f"list fused, {len(results)} questions")
