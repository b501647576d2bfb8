"""Paired statistics over per-question outcomes: pure functions over arrays.

scipy.stats is imported inside the functions that use it: the workflow imports this module
while it is read, in every job, and importing scipy.stats takes 1.5 s of a core.
"""
from __future__ import annotations

from math import comb, sqrt

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


EXACT_MAX = 20  # nonzero differences up to which the randomization test enumerates all 2^n sign vectors


def randomization_test(a, b, seed: int, permutations: int) -> dict:
    """Paired randomization (permutation) test of mean(b - a) = 0, two-sided (Fisher's; Smucker,
    Allan & Carterette 2007): under the null each question's difference keeps its size and takes
    either sign. p = P(|T| >= |t|), T the sum of the re-signed differences: exact over all 2^n sign
    vectors of the n nonzero differences when n <= EXACT_MAX; otherwise from `permutations`
    random sign vectors, (hits + 1) / (permutations + 1), drawn per distinct size: the m
    differences of size v sum to v * (2 * Binomial(m, 1/2) - m), the same law as m coin flips."""
    d = np.asarray(b, float) - np.asarray(a, float)
    d = d[d != 0]
    observed = abs(d.sum())
    tol = 1e-9 * max(1.0, observed)                   # sums of the same values in another order
    if len(d) <= EXACT_MAX:
        n = len(d)
        count = 0
        for start in range(0, 2 ** n, 2 ** 16):
            codes = np.arange(start, min(2 ** n, start + 2 ** 16))[:, None]
            signs = ((codes >> np.arange(n)) & 1) * 2 - 1
            count += int(np.sum(np.abs(signs @ d) >= observed - tol))
        return {"p": count / 2 ** n, "method": "exact", "nonzero": n, "permutations": 2 ** n}
    sizes, counts = np.unique(np.round(np.abs(d), 12), return_counts=True)
    rng = np.random.default_rng(seed)
    total = np.zeros(permutations)
    for v, m in zip(sizes[counts > 1], counts[counts > 1]):
        total += v * (2 * rng.binomial(m, 0.5, size=permutations) - m)
    single = sizes[counts == 1]                       # a size of its own: one coin, from random bits
    for start in range(0, permutations, 2 ** 15):
        rows = min(2 ** 15, permutations - start)
        raw = np.frombuffer(rng.bytes(rows * ((len(single) + 7) // 8)), np.uint8).reshape(rows, -1)
        bits = np.unpackbits(raw, axis=1)[:, :len(single)]
        total[start:start + rows] += bits @ (2 * single) - single.sum()
    hits = int(np.sum(np.abs(total) >= observed - tol))
    return {"p": (hits + 1) / (permutations + 1), "method": "monte carlo", "nonzero": int(len(d)),
            "permutations": permutations}


def holm(pvalues) -> list[float]:
    """Holm step-down adjusted p values, in the input order: the i-th smallest of m is
    multiplied by m - i (i from 0), then made non-decreasing and capped at 1."""
    p = np.asarray(pvalues, float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled) if m else scaled
    return [float(x) for x in adjusted]


def wilson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of the proportion k/n (no continuity correction)."""
    from scipy.stats import norm
    if n == 0:
        return 0.0, 1.0
    z = float(norm.ppf(1 - (1 - level) / 2))
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # at k = 0 (k = n) the bound is exactly 0 (1); in floats centre - half can land a hair above it
    return (0.0 if k == 0 else max(0.0, centre - half)), (1.0 if k == n else min(1.0, centre + half))


# Power of the paired comparison. The test is the exact two-sided sign test on the discordant
# questions (McNemar's exact test). With N questions, discordance rate psi (share of questions
# on which A and B disagree) and failure-rate difference delta = fail_B - fail_A (|delta| <= psi),
# the number of discordant questions is M ~ Binomial(N, psi) and, given M = m, the number won by
# one side is Binomial(m, pi) with pi = (1 + |delta| / psi) / 2. The power is the exact
# unconditional probability of p <= alpha: sum over m of P(M = m) * P(reject | m, pi), where
# the rejection region for m is {x <= c_m} u {x >= m - c_m}, c_m the largest x with
# 2 * P(Binomial(m, 1/2) <= x) <= alpha. Both the minimum detectable difference (bisection on
# delta in (0, psi]) and the questions needed (doubling, then bisection on N) plug the observed
# discordance rate in for psi; the power grows with N and with |delta|. Questions count as
# independent here (the H/P clusters enter only the bootstrap interval), so it is optimistic.

def sign_test_critical(m, alpha: float = 0.05) -> np.ndarray:
    """c_m per m: the largest x whose sign test rejects at alpha (x <= c or x >= m - c); -1: none."""
    from scipy.stats import binom
    m = np.atleast_1d(np.asarray(m, int))
    c = binom.ppf(alpha / 2, m, 0.5).astype(int)        # smallest x with P(X <= x) >= alpha/2
    c = np.where(2 * binom.cdf(c, m, 0.5) <= alpha * (1 + 1e-12), c, c - 1)
    return np.where(m > 0, c, -1)


def sign_test_power(m, pi: float, alpha: float = 0.05) -> np.ndarray:
    """P(the sign test on m discordant questions rejects at alpha | each goes one way with pi)."""
    from scipy.stats import binom
    m = np.atleast_1d(np.asarray(m, int))
    c = sign_test_critical(m, alpha)
    power = binom.cdf(c, m, pi) + binom.sf(m - c - 1, m, pi)
    return np.where(c >= 0, power, 0.0)


def paired_power(n: int, discordance: float, diff: float, alpha: float = 0.05) -> float:
    """Exact unconditional power of the sign test with n questions (see the comment above)."""
    from scipy.stats import binom
    diff = abs(diff)
    if n <= 0 or discordance <= 0 or diff > discordance + 1e-12:
        return 0.0
    psi, pi = min(discordance, 1.0), min(1.0, (1 + diff / discordance) / 2)
    # m outside these quantiles carries less than 1e-15 of the probability
    m = np.arange(int(binom.ppf(1e-16, n, psi)), int(binom.isf(1e-16, n, psi)) + 1)
    return float(np.sum(binom.pmf(m, n, psi) * sign_test_power(m, pi, alpha)))


def interval_power(n: int, discordance: float, diff: float, alpha: float = 0.05) -> float:
    """Power of the verdict's interval (the 1 - alpha bootstrap interval of fail_B - fail_A
    excludes 0), by the normal approximation of the paired mean difference: a question adds +1,
    -1 or 0, so the mean has variance (psi - delta^2) / N. The percentile bootstrap has no
    discreteness to pay for, so it rejects more often than the exact sign test at small N
    (benchmarks/bench_power.py). Independent questions, as for paired_power."""
    from scipy.stats import norm
    diff = abs(diff)
    if n <= 0 or discordance <= 0 or diff > discordance + 1e-12:
        return 0.0
    shift = diff / sqrt(max(discordance - diff * diff, 1e-12) / n)
    z = float(norm.ppf(1 - alpha / 2))
    return float(norm.cdf(shift - z) + norm.cdf(-shift - z))


def min_detectable_diff(n: int, discordance: float, alpha: float = 0.05, power: float = 0.8,
                        tol: float = 1e-6, power_of=paired_power) -> float | None:
    """The smallest |fail_B - fail_A| detected with `power` (by `power_of`: the sign test's by
    default); None if even |delta| = psi is not."""
    if power_of(n, discordance, discordance, alpha) < power:
        return None
    lo, hi = 0.0, discordance
    while hi - lo > tol:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if power_of(n, discordance, mid, alpha) >= power else (mid, hi)
    return hi


def questions_needed(discordance: float, diff: float, alpha: float = 0.05, power: float = 0.8,
                     max_n: int = 100_000, power_of=paired_power) -> int | None:
    """The smallest N whose power for `diff` (by `power_of`) reaches `power`; None if no
    difference or > max_n."""
    diff = abs(diff)
    if diff == 0 or discordance <= 0 or diff > discordance + 1e-12:
        return None
    lo, hi = 0, 1                                        # power(lo) < target <= power(hi)
    while power_of(hi, discordance, diff, alpha) < power:
        if hi >= max_n:
            return None
        lo, hi = hi, min(2 * hi, max_n)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if power_of(mid, discordance, diff, alpha) >= power else (mid, hi)
    return hi
