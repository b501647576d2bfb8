"""Per-question retrieval measures: pure functions over ranked chunk ids and gold.

A question's gold is a list of units (a passage, a chunk, a document), each satisfied by any of
its chunks; `gold` below is the union of those chunks.
"""
from __future__ import annotations

import math
from typing import Sequence


def hit_at(ranked: Sequence[str], gold: set[str], k: int) -> bool:
    """Any gold chunk in the top k (its absence is a failure@k)."""
    return any(cid in gold for cid in ranked[:k])


def recall_at(ranked: Sequence[str], units: Sequence[set[str]], k: int) -> float:
    """Share of gold units with a chunk in the top k: the cookbook's Pass@k (a unit per gold chunk),
    AutoRAG's retrieval recall (a unit per group of gold ids, any member satisfying it)."""
    top = set(ranked[:k])
    return sum(1 for chunks in units if chunks & top) / len(units) if units else 0.0


def doc_hit_at(ranked_slugs: Sequence[str], gold_slugs: set[str], k: int) -> bool:
    """Any chunk of a gold document in the top k."""
    return any(s in gold_slugs for s in ranked_slugs[:k])


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


def ndcg_at(ranked: Sequence[str], grades: dict[str, int], k: int) -> float:
    """nDCG@k with linear gains (trec_eval's ndcg_cut, ir_measures' nDCG@k): the DCG of the top
    k over the DCG of the best possible order of every judged item; `grades` id -> grade."""
    dcg = sum(grades.get(cid, 0) / math.log2(i + 2) for i, cid in enumerate(ranked[:k]))
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best else 0.0


def judged_recall_at(ranked: Sequence[str], grades: dict[str, int], k: int) -> float:
    """R@k as trec_eval counts it: the share of the judged relevant items (grade > 0) in the top k."""
    relevant = {cid for cid, g in grades.items() if g > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def document_ranking(ranked: Sequence[str], slug_of: dict[str, str]) -> list[str]:
    """A chunk run as a document run (max-passage): each document at the rank of its best chunk."""
    return list(dict.fromkeys(slug_of[cid] for cid in ranked))
