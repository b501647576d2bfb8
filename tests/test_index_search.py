"""Qdrant collections and exact search: embedded equals in-memory, a dead server is one error."""
import socket

import numpy as np
import pytest
from qdrant_client import QdrantClient

from conftest import settings
from ctxret.errors import InputError
from ctxret.fusion import rrf
from ctxret.index import build_collection, build_embedded
from ctxret.qdrant import open_client
from ctxret.search import _fetcher, exact_top_k


def collection_inputs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    dense = {m: rng.standard_normal((n, d)).astype(np.float32) for m, d in (("m3", 32), ("e5", 16))}
    dense["e5"][7] = dense["e5"][3]                       # an exact tie
    rows = [{"chunk_id": f"{i:05d}", "slug": f"d{i // 10}"} for i in range(n)]
    sparse = [([i % 7, 7 + i % 5], [1.0, 0.5]) for i in range(n)]
    queries = {m: rng.standard_normal((5, v.shape[1])).astype(np.float32) for m, v in dense.items()}
    queries["e5"][0] = dense["e5"][3]
    return rows, dense, sparse, queries


def search_all(client, queries):
    return {m: [exact_top_k(_fetcher(client, "v", m, q.tolist(), False), 10) for q in qs]
            for m, qs in queries.items()}


def test_embedded_and_in_memory_give_identical_runs(tmp_path):
    rows, dense, sparse, queries = collection_inputs()
    memory = QdrantClient(":memory:")
    build_collection(memory, "v", rows, dense, sparse)
    path = str(tmp_path / "qdrant" / "v")                # its directory does not exist yet
    assert build_embedded(path, "v", "fp-1", rows, dense, sparse)
    with open_client(path=path) as embedded:
        on_disk, in_memory = search_all(embedded, queries), search_all(memory, queries)
    for m in queries:
        for a, b in zip(on_disk[m], in_memory[m]):
            assert [c for c, _ in a] == [c for c, _ in b]
            # vectors reloaded from disk are normalised again: scores agree to float32 precision
            np.testing.assert_allclose([s for _, s in a], [s for _, s in b], rtol=0, atol=1e-6)
    # the same fingerprint keeps the collection; another rebuilds it
    assert not build_embedded(path, "v", "fp-1", rows, dense, sparse)
    assert build_embedded(path, "v", "fp-2", rows, dense, sparse)


def test_ties_come_in_chunk_id_order():
    rows, dense, sparse, queries = collection_inputs()
    client = QdrantClient(":memory:")
    build_collection(client, "v", rows, dense, sparse)
    top = exact_top_k(_fetcher(client, "v", "e5", queries["e5"][0].tolist(), False), 2)
    assert [c for c, _ in top] == ["00003", "00007"] and top[0][1] == pytest.approx(top[1][1])


def test_a_server_that_does_not_answer_is_one_clear_error():
    with socket.socket() as s:                          # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(InputError, match=rf"Qdrant server http://127.0.0.1:{port} does not answer"):
        with open_client(url=f"http://127.0.0.1:{port}", api_key_env="QDRANT_API_KEY"):
            pass


@pytest.fixture(scope="module")
def presets():
    return settings()["fusion"]["presets"]


def fused(preset, lists):
    return dict(rrf(lists, k=preset["k"], rank_base=preset["rank_base"],
                    weights=[preset["weights"]["dense"], preset["weights"]["bm25"]], depth=preset["depth"]))


def test_each_shipped_preset_on_hand_computed_lists(presets):
    dense = [f"d{i}" for i in range(60)]
    bm25 = ["d1", "x"] + [f"b{i}" for i in range(58)]
    ref = fused(presets["reference"], [dense, bm25])         # k=2, ranks from 0, top 20 each
    assert ref["d1"] == pytest.approx(1 / 3 + 1 / 2)
    assert "d25" not in ref and "b30" not in ref
    play = fused(presets["playbook"], [dense, bm25])          # k=60, ranks from 1, 0.6/0.4, top 50
    assert play["d1"] == pytest.approx(0.6 / 62 + 0.4 / 61)
    assert play["x"] == pytest.approx(0.4 / 62)
    assert "d55" not in play and "d49" in play
    weighted = fused(presets["weighted"], [dense, bm25])      # 0.8/0.2 over 1/rank, top 100
    assert weighted["d1"] == pytest.approx(0.8 / 2 + 0.2 / 1)
    assert weighted["d59"] == pytest.approx(0.8 / 60)
