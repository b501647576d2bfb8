"""Qdrant collections and search: the embedded engine equals numpy and the server path, ties come
in chunk id order, HNSW is measured against exact, a dead server is one error."""
import socket

import numpy as np
import pytest
import scipy.sparse as sp
from qdrant_client import QdrantClient

from ctxret.errors import InputError
from ctxret.retrieval.qdrant import Hnsw, ServerEngine, open_engine
from ctxret.stages.index import build_embedded, fill
from ctxret.stages.search import dense_scorer, recall_at_k, top_k_all


def collection_inputs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    dense = {m: rng.standard_normal((n, d)).astype(np.float32) for m, d in (("m3", 32), ("e5", 16))}
    dense["e5"][7] = dense["e5"][3]                       # an exact tie
    rows = [{"chunk_id": f"{i:05d}", "slug": f"d{i // 10}"} for i in range(n)]
    matrix = sp.csr_matrix(([1.0, 0.5] * n, [t for i in range(n) for t in (i % 7, 7 + i % 5)],
                            range(0, 2 * n + 1, 2)), shape=(n, 12))
    queries = {m: rng.standard_normal((5, v.shape[1])).astype(np.float32) for m, v in dense.items()}
    queries["e5"][0] = dense["e5"][3]
    return rows, dense, matrix, queries


def numpy_top_k(dense, rows, q, k):
    """Exact cosine top k in float64, ties by chunk id: [(chunk id, score)]."""
    dense, q = dense.astype(np.float64), q.astype(np.float64)
    scores = dense / np.linalg.norm(dense, axis=1, keepdims=True) @ (q / np.linalg.norm(q))
    order = sorted(range(len(rows)), key=lambda i: (-scores[i], rows[i]["chunk_id"]))[:k]
    return [(rows[i]["chunk_id"], scores[i]) for i in order]


def search_all(engine, queries, dense, rows, k=10):
    """Every query's top k: the engine's hits rescored in float64, as the search stage does."""
    return {m: top_k_all(engine, m, list(qs), k, rescore=dense_scorer(dense[m], [r["chunk_id"] for r in rows], True))
            for m, qs in queries.items()}


@pytest.mark.filterwarnings("ignore:Local mode performs exact")
def test_embedded_engine_equals_numpy_and_the_server_path(tmp_path):
    rows, dense, matrix, queries = collection_inputs()
    path = str(tmp_path / "qdrant" / "v")                # its directory does not exist yet
    assert build_embedded(path, "fp-1", lambda e: fill(e, rows, dense, matrix, None)) == (True, 60)
    server = ServerEngine(QdrantClient(":memory:"), "v")  # the server path's client, without a server
    fill(server, rows, dense, matrix, None)
    with open_engine(path=path) as embedded:
        on_disk, served = search_all(embedded, queries, dense, rows), search_all(server, queries, dense, rows)
        raw = top_k_all(embedded, "m3", list(queries["m3"]), 10)                # the engine's own float32 scores
    for m in queries:
        for q, a, b in zip(queries[m], on_disk[m], served[m]):
            expected = numpy_top_k(dense[m], rows, q, 10)
            assert [c for c, _ in a] == [c for c, _ in b] == [c for c, _ in expected]
            np.testing.assert_allclose([s for _, s in a], [s for _, s in expected], rtol=0, atol=1e-12)
    for q, hits in zip(queries["m3"], raw):
        np.testing.assert_allclose([s for _, s in hits], [s for _, s in numpy_top_k(dense["m3"], rows, q, 10)],
                                   rtol=0, atol=1e-5)
    # the same fingerprint keeps the collection; another rebuilds it
    assert build_embedded(path, "fp-1", lambda e: pytest.fail("rebuilt")) == (False, 60)
    assert build_embedded(path, "fp-2", lambda e: fill(e, rows, dense, matrix, None)) == (True, 60)


def test_ties_come_in_chunk_id_order(tmp_path):
    rows, dense, matrix, queries = collection_inputs()
    path = str(tmp_path / "v")
    build_embedded(path, "fp", lambda e: fill(e, rows, dense, matrix, None))
    with open_engine(path=path) as engine:
        (top,) = top_k_all(engine, "e5", [queries["e5"][0]], 2,
                           rescore=dense_scorer(dense["e5"], [r["chunk_id"] for r in rows], True))
    assert [c for c, _ in top] == ["00003", "00007"] and top[0][1] == top[1][1]


def test_hnsw_is_built_on_request_and_measured_against_exact(tmp_path):
    rows, dense, matrix, queries = collection_inputs(n=300)
    path = str(tmp_path / "v")
    build_embedded(path, "fp", lambda e: fill(e, rows, dense, matrix, Hnsw(m=16, ef_construct=100, ef=64)))
    qs = list(np.random.default_rng(1).standard_normal((20, 16)).astype(np.float32))
    with open_engine(path=path) as engine:
        approx = top_k_all(engine, "e5", qs, 10, exact=False, ef=64)
        exact = top_k_all(engine, "e5", qs, 10)
    assert [[c for c, _ in e] for e in exact] == [[c for c, _ in numpy_top_k(dense["e5"], rows, q, 10)] for q in qs]
    assert recall_at_k(approx, exact) >= 0.9
    assert recall_at_k(exact, exact) == 1.0


def test_a_missing_shard_and_a_server_that_does_not_answer_are_one_clear_error(tmp_path):
    with pytest.raises(InputError, match="no Qdrant shard here"):
        with open_engine(path=str(tmp_path / "nothing")):
            pass
    with socket.socket() as s:                          # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(InputError, match=rf"Qdrant server http://127.0.0.1:{port} does not answer"):
        with open_engine(url=f"http://127.0.0.1:{port}", api_key_env="QDRANT_API_KEY", name="v"):
            pass
