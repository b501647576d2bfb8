"""Fusion on lists whose scores are computed by hand."""
import pytest

from ctxret.fusion import rrf


def test_reference_rrf_k2_ranks_from_zero():
    dense = ["a", "b", "c"]
    bm25 = ["c", "a", "d"]
    fused = dict(rrf([dense, bm25], k=2, rank_base=0, weights=[1, 1], depth=20))
    assert fused["a"] == pytest.approx(1 / 2 + 1 / 3)
    assert fused["c"] == pytest.approx(1 / 4 + 1 / 2)
    assert fused["b"] == pytest.approx(1 / 3)
    assert fused["d"] == pytest.approx(1 / 4)


def test_classic_k60_from_one_equals_k61_from_zero():
    lists = [["a", "b", "c", "d"], ["d", "c", "e"]]
    classic = rrf(lists, k=60, rank_base=1, weights=[1, 1], depth=20)
    shifted = rrf(lists, k=61, rank_base=0, weights=[1, 1], depth=20)
    assert [c for c, _ in classic] == [c for c, _ in shifted]
    assert [s for _, s in classic] == pytest.approx([s for _, s in shifted])


def test_weights_and_depth():
    lists = [["a", "b", "c"], ["c", "b", "a"]]
    fused = dict(rrf(lists, k=60, rank_base=1, weights=[0.6, 0.4], depth=2))
    assert fused["a"] == pytest.approx(0.6 / 61)           # beyond depth in the second list
    assert fused["b"] == pytest.approx(0.6 / 62 + 0.4 / 62)
    assert fused["c"] == pytest.approx(0.4 / 61)


def test_weighted_reciprocal_rank_is_rrf_with_k_0_from_rank_1():
    fused = dict(rrf([["a", "b"], ["b"]], k=0, rank_base=1, weights=[0.8, 0.2], depth=50))
    assert fused == pytest.approx({"a": 0.8, "b": 0.8 / 2 + 0.2})


def test_ties_are_broken_by_chunk_id():
    fused = rrf([["00009", "00003"], ["00003", "00009"]], k=2, rank_base=0, weights=[1, 1], depth=20)
    assert [c for c, _ in fused] == ["00003", "00009"]
