"""Benjamini-Hochberg adjusted p values against a separate implementation (statsmodels is not installed):
the definition min over j >= i of m p_(j) / j, computed pair by pair."""
from __future__ import annotations

import numpy as np
import pytest

from ctxret.evaluation.stats import benjamini_hochberg, holm


def bh_by_definition(p) -> list[float]:
    m = len(p)
    ranked = sorted(range(m), key=lambda i: p[i])
    rank = {i: r + 1 for r, i in enumerate(ranked)}
    return [min(1.0, min(m * p[j] / rank[j] for j in range(m) if rank[j] >= rank[i])) for i in range(m)]


@pytest.mark.parametrize("seed", range(5))
def test_bh_matches_its_definition(seed):
    rng = np.random.default_rng(seed)
    p = list(np.concatenate([rng.uniform(size=20), rng.uniform(0, 0.01, size=5), [0.5, 0.5]]))
    assert benjamini_hochberg(p) == pytest.approx(bh_by_definition(p), abs=1e-15)


def test_bh_is_never_above_holm_and_empty_is_empty():
    p = [0.001, 0.01, 0.02, 0.03, 0.2, 0.9]
    assert all(b <= h + 1e-15 for b, h in zip(benjamini_hochberg(p), holm(p)))
    assert benjamini_hochberg([]) == []
    try:
        from statsmodels.stats.multitest import multipletests
    except ImportError:
        return
    assert benjamini_hochberg(p) == pytest.approx(list(multipletests(p, method="fdr_bh")[1]))
