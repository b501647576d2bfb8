"""Exact ties are decided by the documented rule (score desc, chunk id) in fusion, dense search
and BM25, never by floating-point rounding or by the engine's order."""
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from ctxret.retrieval.bm25 import SimpleTokenizer, build_index, query_vector
from ctxret.retrieval.fusion import rrf
from ctxret.retrieval.qdrant import open_engine
from ctxret.stages.index import build_embedded, fill
from ctxret.stages.search import bm25_scorer, dense_scorer, exact_top_k, top_k_all


def placed(length: int, at: dict[str, int], filler: str) -> list[str]:
    """A ranked list of `length` ids with the given ids at the given 0-based positions."""
    ids = [f"{filler}{i:02d}" for i in range(length)]
    for cid, pos in at.items():
        ids[pos] = cid
    return ids


def test_equal_rrf_sums_reached_by_different_ranks_tie_and_the_chunk_id_decides():
    # k=0, ranks from 1: "b" = 1/2 + 1/12, "a" = 1/3 + 1/4, both exactly 7/12. In floats the
    # first sum is one ulp above the second, which used to put "b" first.
    assert 1 / 2 + 1 / 12 > 1 / 3 + 1 / 4
    first = placed(20, {"b": 1, "a": 2}, "x")
    second = placed(20, {"a": 3, "b": 11}, "y")
    fused = rrf([first, second], k=0, rank_base=1, weights=[1, 1], depth=20)
    scores = dict(fused)
    assert scores["a"] == scores["b"] == float(Fraction(7, 12))
    ids = [c for c, _ in fused]
    assert ids.index("a") == ids.index("b") - 1


def test_decimal_weights_tie_exactly():
    # k=1, ranks from 0, weights 0.7 and 0.3: "a" = 0.7/3 + 0.3/18 and "b" = 0.7/4 + 0.3/4, both
    # exactly 1/4 (the weights read as the decimals written); in floats "a" is 0.24999999999999997
    assert 0.7 / 3 + 0.3 / 18 < 0.7 / 4 + 0.3 / 4
    first = placed(20, {"a": 2, "b": 3}, "x")
    second = placed(20, {"b": 3, "a": 17}, "y")
    fused = rrf([first, second], k=1, rank_base=0, weights=[0.7, 0.3], depth=20)
    scores = dict(fused)
    assert scores["a"] == scores["b"] == 0.25
    ids = [c for c, _ in fused]
    assert ids.index("a") == ids.index("b") - 1


def engine_build(path: str, rows: list[dict], vectors: np.ndarray, fingerprint: str) -> None:
    matrix = sp.csr_matrix(np.ones((len(rows), 1)))
    build_embedded(path, fingerprint, lambda engine: fill(engine, rows, {"e5": vectors}, matrix, None))


def test_a_dense_tie_at_rank_k_is_decided_by_chunk_id_not_by_engine_order(tmp_path):
    rng = np.random.default_rng(1)
    n, k, tied = 60, 3, 30
    vectors = rng.standard_normal((n, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors[:tied] = vectors[0]                            # 30 chunks share the best score
    query = vectors[0].copy()
    ids = [f"{i:05d}" for i in rng.permutation(n)]         # chunk ids in no relation to point order
    rows = [{"chunk_id": c, "slug": "d"} for c in ids]
    path = str(tmp_path / "v")
    engine_build(path, rows, vectors, "fp")
    with open_engine(path=path) as engine:
        engine_first = [c for c, _ in engine.search("e5", [query], k, True)[0]]
        (top,) = top_k_all(engine, "e5", [query], k, rescore=dense_scorer(vectors, ids, False))
    assert [c for c, _ in top] == sorted(ids[:tied])[:k]
    assert engine_first != [c for c, _ in top]            # the engine alone would have cut otherwise
    assert len({s for _, s in top}) == 1


def test_a_dense_fetch_widens_until_the_kth_score_is_strictly_above_the_next():
    limits = []
    scored = [(f"{i:05d}", 1.0 if i < 7 else 0.5) for i in range(30)][::-1]   # engine order: worst ids first

    def fetch(limit):
        limits.append(limit)
        return sorted(scored, key=lambda cs: -cs[1])[:limit]

    top = exact_top_k(fetch, 2)
    assert [c for c, _ in top] == ["00000", "00001"]
    assert limits == [3, 6, 12]                           # 12 is the first fetch reaching a lower score


def test_a_bm25_tie_at_rank_k_is_decided_by_chunk_id(tmp_path):
    texts = ["kafka lag alert", "redis ttl", "kafka lag alert", "kafka lag alert", "kafka retries"]
    tokens = SimpleTokenizer(lowercase=True).many(texts)
    _, vocab, matrix = build_index(tokens, 1.5, 0.75)
    chunk_ids = ["00009", "00001", "00004", "00002", "00003"]
    rows = [{"chunk_id": c, "slug": "d"} for c in chunk_ids]
    path = str(tmp_path / "v")
    build_embedded(path, "fp", lambda engine: fill(engine, rows, {}, matrix, None))
    with open_engine(path=path) as engine:          # the search stage's path: engine, then float64
        (top,) = top_k_all(engine, "bm25", [query_vector(["kafka", "lag"], vocab)], 2,
                           rescore=bm25_scorer(matrix.tocsr(), chunk_ids))
    assert [c for c, _ in top] == ["00002", "00004"]     # three tied texts: the two smallest ids
    assert top[0][1] == top[1][1]
