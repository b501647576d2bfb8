"""The paired randomization test written again for the tests (no ctxret import): p = the share of
the 2^n sign vectors e whose |sum e_i d_i| is at least |sum d_i|, d_i = b_i - a_i over the questions
that differ, a sum within 1e-9 (relative above 1) of it counting as equal.

- `reciprocal_rank_p`: values that are exact fractions 1/r (MRR): a Counter of the exact integer
  sums in units of 1/lcm(denominators), question by question, with integer counts: exact.
- `float_sum_p`: any values, a Counter of the float sums keyed to 1e-10, question by question:
  exact while the distinct sums stay few (a question set of tens that differ).
- `fourier_bounds`: any values, many questions: each d_i rounded to a dyadic grid, the law of the
  integer sum by Fourier inversion of the product of cos(theta k_i), and bounds that hold whatever
  the rounding (|true sum - grid sum| <= the sum of the rounding errors).
"""
from __future__ import annotations

from collections import Counter
from fractions import Fraction
from math import lcm

import numpy as np


def differences(a, b) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in zip(a, b) if x != y]


def threshold_of(observed: float) -> float:
    return observed - 1e-9 * max(1.0, observed)


def reciprocal_rank_p(a, b, largest_rank: int = 1000) -> float:
    pairs = [(Fraction(x).limit_denominator(largest_rank), Fraction(y).limit_denominator(largest_rank))
             for x, y in differences(a, b)]
    assert all(float(fx) == x and float(fy) == y for (fx, fy), (x, y) in zip(pairs, differences(a, b)))
    unit = lcm(1, *(f.denominator for pair in pairs for f in pair))
    steps = [int((fy - fx) * unit) for fx, fy in pairs]
    sums = Counter({0: 1})
    for s in steps:
        grown = Counter()
        for total, ways in sums.items():
            grown[total + s] += ways
            grown[total - s] += ways
        sums = grown
    observed = abs(sum(steps))
    return float(Fraction(sum(ways for total, ways in sums.items() if abs(total) >= observed), 2 ** len(steps)))


def float_sum_p(a, b, max_sums: int = 200_000) -> float | None:
    """None when the distinct sums outgrow max_sums."""
    d = [y - x for x, y in differences(a, b)]
    sums = {0: (0.0, 1)}                              # key -> (a float sum, sign vectors reaching it)
    for di in d:
        grown: dict[int, tuple[float, int]] = {}
        for total, ways in sums.values():
            for t in (total + di, total - di):
                key = round(t * 1e10)
                grown[key] = (t, grown.get(key, (t, 0))[1] + ways)
        sums = grown
        if len(sums) > max_sums:
            return None
    threshold = threshold_of(abs(sum(d)))
    return float(Fraction(sum(ways for total, ways in sums.values() if abs(total) >= threshold), 2 ** len(d)))


def fourier_bounds(a, b, points: int = 2 ** 23) -> tuple[float, float]:
    d = np.array([y - x for x, y in differences(a, b)])
    step = 2.0 ** np.ceil(np.log2(2 * np.abs(d).sum() / (points - 1 - 2 * len(d))))   # every sum fits in `points`
    k = np.round(d / step).astype(np.int64)
    slack = np.abs(d - k * step).sum() + 1e-12 * len(d)
    theta = 2 * np.pi * np.arange(points // 2 + 1) / points
    phi = np.ones_like(theta)
    for size, m in Counter(np.abs(k).tolist()).items():
        phi *= np.cos(theta * size) ** m
    law = np.fft.irfft(phi, n=points)
    totals = np.abs(np.where(np.arange(points) <= points // 2, np.arange(points), np.arange(points) - points))
    threshold = threshold_of(abs(d.sum()))
    return (float(law[totals * step >= threshold + slack].sum()), float(law[totals * step >= threshold - slack].sum()))


def scipy_p(a, b, draws: int | None = None, seed: int = 7) -> float:
    """scipy.stats.permutation_test's paired test of mean(b - a), two-sided: over every sign vector
    without `draws`, else from that many random ones. Only the questions that differ are passed
    (a question scored the same under A and B changes no sum), so the exact test stays in reach."""
    from scipy.stats import permutation_test
    d = differences(a, b)
    if len(d) < 2:                                     # scipy needs two; one sign flip cannot exceed itself
        return 1.0
    x, y = (np.array(side) for side in zip(*d))
    return float(permutation_test((x, y), lambda u, v, axis: np.mean(v - u, axis=axis), permutation_type="samples",
                                  vectorized=True, random_state=seed, batch=20_000,
                                  n_resamples=np.inf if draws is None else draws).pvalue)
