"""Per-question retrieval measures: pure functions over ranked ids and gold ids."""
from __future__ import annotations

from typing import Sequence


def hit_at(ranked: Sequence[str], gold: set[str], k: int) -> bool:
    """Any gold chunk in the top k (its absence is a failure@k)."""
    return any(cid in gold for cid in ranked[:k])


def recall_at(ranked: Sequence[str], gold: set[str], k: int) -> float:
    """Share of gold chunks in the top k."""
    return sum(1 for cid in set(ranked[:k]) if cid in gold) / len(gold) if gold else 0.0


def doc_hit_at(ranked_slugs: Sequence[str], gold_slug: str, k: int) -> bool:
    return gold_slug in ranked_slugs[:k]


def reciprocal_rank(ranked: Sequence[str], gold: set[str], k: int) -> float:
    for rank, cid in enumerate(ranked[:k], 1):
        if cid in gold:
            return 1.0 / rank
    return 0.0


def gold_rank(ranked: Sequence[str], gold: set[str]) -> int | None:
    """1-based rank of the first gold chunk in the run, or None."""
    for rank, cid in enumerate(ranked, 1):
        if cid in gold:
            return rank
    return None
