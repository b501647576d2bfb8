"""Fusion of ranked lists: pure functions with every parameter explicit.

RRF: score(d) = sum over lists of weight / (k + rank), rank counted from `rank_base`, over
the first `depth` entries of each list. The reference's setting is k=2, ranks from 0, depth 20
(qdrant-client's local RRF); the classic k=60 with ranks from 1 is k=61 from 0.
"""
from __future__ import annotations

from typing import Sequence


def order(scores: dict[str, float]) -> list[tuple[str, float]]:
    """Ties broken by (score desc, chunk id)."""
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def rrf(lists: Sequence[Sequence[str]], k: float, rank_base: int, weights: Sequence[float],
        depth: int) -> list[tuple[str, float]]:
    if len(weights) != len(lists):
        raise ValueError("one weight per list")
    scores: dict[str, float] = {}
    for ids, w in zip(lists, weights):
        for rank, cid in enumerate(ids[:depth], start=rank_base):
            scores[cid] = scores.get(cid, 0.0) + w / (k + rank)
    return order(scores)
