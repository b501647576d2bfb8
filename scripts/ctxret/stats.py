"""Paired statistics over per-question outcomes: pure functions over arrays."""
from __future__ import annotations

from math import comb

import numpy as np


def sign_test(only_a: int, only_b: int) -> float:
    """Exact two-sided sign test on the discordant pairs (binomial, p = 1/2)."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(only_a, only_b) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def paired_counts(hit_a: np.ndarray, hit_b: np.ndarray) -> dict[str, int]:
    hit_a, hit_b = np.asarray(hit_a, bool), np.asarray(hit_b, bool)
    return {"both_hit": int(np.sum(hit_a & hit_b)), "both_missed": int(np.sum(~hit_a & ~hit_b)),
            "only_a": int(np.sum(hit_a & ~hit_b)), "only_b": int(np.sum(~hit_a & hit_b))}


def cluster_bootstrap_diff(fail_a: np.ndarray, fail_b: np.ndarray, clusters: np.ndarray,
                           seed: int, n_resamples: int, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of mean(fail_b) - mean(fail_a), resampling whole clusters."""
    fail_a, fail_b = np.asarray(fail_a, float), np.asarray(fail_b, float)
    labels, idx = np.unique(np.asarray(clusters), return_inverse=True)
    m = len(labels)
    diff_sum = np.bincount(idx, weights=fail_b - fail_a, minlength=m)
    size = np.bincount(idx, minlength=m).astype(float)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, m, size=(n_resamples, m))
    stats = diff_sum[draws].sum(axis=1) / size[draws].sum(axis=1)
    alpha = (1 - level) / 2
    lo, hi = np.quantile(stats, [alpha, 1 - alpha])
    return float(lo), float(hi)
