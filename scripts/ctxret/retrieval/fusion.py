"""Fusion of ranked lists: pure functions with every parameter explicit.

RRF: score(d) = sum over lists of weight / (k + rank), rank counted from `rank_base`, over
the first `depth` entries of each list. The reference's setting is k=2, ranks from 0, depth 20
(qdrant-client's local RRF); the classic k=60 with ranks from 1 is k=61 from 0.

The sums are exact (fractions; k and the weights read as the decimals they are written as), so
scores that are mathematically equal are equal and the documented tie rule, (score desc, chunk
id), decides their order: 7/12 reached as 1/2 + 1/12 ties with 7/12 reached as 1/3 + 1/4, where
float sums would differ in the last bit. The scores written out are those fractions as floats.
"""
from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple, Sequence


class FusionPreset(NamedTuple):
    """A hybrid's fusion: its preset's name, RRF's k and rank base, the dense and BM25 lists'
    weights, and the entries read from each list. (A tuple: as a rule's param its value is a
    rerun trigger, as a dict's would be.)"""
    name: str
    k: float
    rank_base: int
    dense_weight: float
    bm25_weight: float
    depth: int

    @classmethod
    def of(cls, name: str, preset: dict, depth: int) -> "FusionPreset":
        """The config's preset `name` (fusion.presets.<name>), reading `depth` entries of each list."""
        weights = preset["weights"]
        return cls(name, float(preset["k"]), int(preset["rank_base"]), float(weights["dense"]),
                   float(weights["bm25"]), int(depth))


def order(scores: dict[str, float]) -> list[tuple[str, float]]:
    """Ties broken by (score desc, chunk id)."""
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def exact(value: float) -> Fraction:
    """A setting as the decimal it is written as (0.7 is 7/10, not its binary neighbour)."""
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def rrf(lists: Sequence[Sequence[str]], k: float, rank_base: int, weights: Sequence[float],
        depth: int) -> list[tuple[str, float]]:
    if len(weights) != len(lists):
        raise ValueError("one weight per list")
    k_exact = exact(k)
    scores: dict[str, Fraction] = {}
    for ids, w in zip(lists, weights):
        w_exact = exact(w)
        for rank, cid in enumerate(ids[:depth], start=rank_base):
            scores[cid] = scores.get(cid, Fraction(0)) + w_exact / (k_exact + rank)
    return [(cid, float(score)) for cid, score in order(scores)]
