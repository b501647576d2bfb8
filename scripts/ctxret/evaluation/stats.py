"""Paired statistics over per-question outcomes: pure functions over arrays.

scipy.stats is imported inside the functions that use it: the workflow imports this module
while it is read, in every job, and importing scipy.stats takes 1.5 s of a core.
"""
from __future__ import annotations

from math import ceil, comb, prod, sqrt
from statistics import NormalDist

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


def _cluster_draws(fail_a, fail_b, clusters, seed: int, n_resamples: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cluster the sum of b - a and the size, and mean(b) - mean(a) on each of `n_resamples`
    resamples of whole clusters (seeded)."""
    fail_a, fail_b = np.asarray(fail_a, float), np.asarray(fail_b, float)
    labels, idx = np.unique(np.asarray(clusters), return_inverse=True)
    m = len(labels)
    diff_sum = np.bincount(idx, weights=fail_b - fail_a, minlength=m)
    size = np.bincount(idx, minlength=m).astype(float)
    draws = np.random.default_rng(seed).integers(0, m, size=(n_resamples, m))
    return diff_sum, size, diff_sum[draws].sum(axis=1) / size[draws].sum(axis=1)


def cluster_bootstrap_diff(fail_a: np.ndarray, fail_b: np.ndarray, clusters: np.ndarray,
                           seed: int, n_resamples: int, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of mean(fail_b) - mean(fail_a), resampling whole clusters."""
    diff_sum, size, stats = _cluster_draws(fail_a, fail_b, clusters, seed, n_resamples)
    alpha = (1 - level) / 2
    lo, hi = np.quantile(stats, [alpha, 1 - alpha])
    return float(lo), float(hi)



def cluster_t_interval(fail_a: np.ndarray, fail_b: np.ndarray, clusters: np.ndarray,
                       level: float = 0.95) -> list[float] | None:
    """The cluster-robust t interval of mean(b) - mean(a) (Cameron & Miller 2015, sections II.C and
    VI.C): the mean's variance from the clusters' sums of residuals, scaled by G / (G - 1) (CR1),
    and Student's t with G - 1 degrees of freedom. No resampling; with clusters of one size it is the
    t interval of the cluster means. None with fewer than two clusters."""
    from scipy.stats import t as student_t
    d = np.asarray(fail_b, float) - np.asarray(fail_a, float)
    labels, idx = np.unique(np.asarray(clusters), return_inverse=True)
    g = len(labels)
    if g < 2:
        return None
    estimate = d.mean()
    residual_sums = np.bincount(idx, weights=d - estimate, minlength=g)
    se = float(np.sqrt(g / (g - 1) * np.sum(residual_sums ** 2)) / len(d))
    half = float(student_t.ppf(0.5 + level / 2, g - 1)) * se
    return [float(estimate - half), float(estimate + half)]

# The paired randomization test's null law: T = sum of e_i * d_i over the n questions that differ,
# each sign e_i = +-1 with probability 1/2. The d_i of one size v and multiplicity m sum to
# v * (2 * Binomial(m, 1/2) - m), so the law of T is the convolution of these, one per distinct size:
# every 2^n sign vector counted, none drawn.
SUPPORT_MAX = 2 ** 20  # distinct sums the grid-free convolution may hold (every n <= 20 fits)
LATTICE = 2520         # lcm(1..10): 0, 1, 1/2, 1/3 and every reciprocal rank 1/r (r <= 10) lie on its grid
GRID_MAX = 2 ** 23     # points of the finest grid law (64 MB)
BOUND_GAP = 1e-5       # the grid is refined until p's bounds are this close (or GRID_MAX is reached)


def randomization_test(a, b) -> dict:
    """Paired randomization (permutation) test of mean(b - a) = 0, two-sided (Fisher's; Smucker,
    Allan & Carterette 2007): under the null each question's difference keeps its size and takes
    either sign. p = P(|T| >= |t|), T the sum of the re-signed differences, over all 2^n sign vectors
    of the n nonzero differences (a sum within 1e-9 of |t| counts as equal: the same values added in
    another order). Exact when the sums are few enough to keep apart (`exact_tail`), otherwise
    bounded on a grid (`grid_bounds`); p is the middle of its bounds."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    differ = a != b
    a, b = a[differ], b[differ]
    d = b - a
    observed = abs(d.sum())
    threshold = observed - 1e-9 * max(1.0, observed)
    sizes, counts = np.unique(np.abs(d), return_counts=True)
    if prod(int(m) + 1 for m in counts) <= SUPPORT_MAX:
        low = high = exact_tail(sizes, counts, threshold)
        grid = None
    else:
        low, high, grid = grid_bounds(a, b, threshold)
    return {"p": (low + high) / 2, "bounds": [low, high], "method": "exact" if low == high else "bounded",
            "nonzero": int(len(d)), "grid": grid}


def exact_tail(sizes, counts, threshold: float) -> float:
    """P(|T| >= threshold) from the law of T held as its distinct sums and the sign vectors reaching
    each (integers, exact in float64 up to n = 53); sums a float rounding apart are one."""
    sums, ways = np.zeros(1), np.ones(1)
    merge = 1e-12 * max(1.0, float(np.dot(sizes, counts)))
    for v, m in zip(sizes, counts):
        steps = np.arange(m + 1)
        sums = (sums[:, None] + v * (2 * steps - m)).ravel()
        ways = (ways[:, None] * np.array([comb(int(m), j) for j in steps], float)).ravel()
        order = np.argsort(sums, kind="stable")
        sums, ways = sums[order], ways[order]
        first = np.flatnonzero(np.diff(sums, prepend=-np.inf) > merge)
        sums, ways = sums[first], np.add.reduceat(ways, first)
    return float(ways[np.abs(sums) >= threshold].sum() / 2.0 ** int(counts.sum()))


def grid_bounds(a: np.ndarray, b: np.ndarray, threshold: float) -> tuple[float, float, float]:
    """Bounds on P(|T| >= threshold) from the exact law of K = sum e_i k_i, k_i = q(b_i) - q(a_i) and
    q(x) = round(x * scale): |T - K / scale| <= delta, the sum of |rounding errors|, whatever the
    signs, so P(|K| >= (threshold + delta) * scale) <= p <= P(|K| >= (threshold - delta) * scale).
    The grid is refined (16 times the points a round, the scale of the smallest delta each time)
    until the bounds are BOUND_GAP apart or GRID_MAX is reached: (low, high, grid step)."""
    points = min(grid_points(a, b, LATTICE), GRID_MAX)
    while True:
        scale = best_scale(a, b, points)
        low, high = tail_bounds(a, b, scale, threshold)
        if high - low <= BOUND_GAP or points >= GRID_MAX:
            return low, high, 1 / scale
        points = min(16 * points, GRID_MAX)


def grid_points(a: np.ndarray, b: np.ndarray, scale: int) -> int:
    """At most this many points hold the law of K at `scale`."""
    return int(2 * (np.abs(b - a).sum() * scale + len(a)) + 1)


def best_scale(a: np.ndarray, b: np.ndarray, points: int) -> int:
    """Of the (at most 1024 largest) multiples of LATTICE (of 1 if LATTICE itself needs more than
    `points`) whose law fits in `points`, the one with the smallest rounding bound delta."""
    step = LATTICE if grid_points(a, b, LATTICE) <= points else 1
    largest = max(1, int((points - 1 - 2 * len(a)) / (2 * np.abs(b - a).sum()) // step))
    scales = step * np.arange(max(1, largest - 1023), largest + 1)
    return int(scales[np.argmin(rounding_bounds(a, b, scales) / scales)])


def rounding_bounds(a: np.ndarray, b: np.ndarray, scales) -> np.ndarray:
    """Per scale: the sum over the questions of |rounding error of b_i - a_i|, in grid steps, with a
    margin for the float arithmetic."""
    s = np.asarray(scales, float)[:, None]
    errors = (b * s - np.round(b * s)) - (a * s - np.round(a * s))
    return np.abs(errors).sum(axis=1) + 1e-7 + len(a) * s[:, 0] * 1e-15


def tail_bounds(a: np.ndarray, b: np.ndarray, scale: int, threshold: float) -> tuple[float, float]:
    k = (np.round(b * scale) - np.round(a * scale)).astype(np.int64)
    law = lattice_law(k)
    span = len(law) // 2
    upper = np.cumsum(law[::-1])[::-1]                # upper[span + c] = P(K >= c)
    delta = float(rounding_bounds(a, b, [scale])[0])

    def two_sided(c: float) -> float:
        c = ceil(c)
        return 1.0 if c <= 0 else 0.0 if c > span else min(1.0, 2 * float(upper[span + c]))
    return two_sided(threshold * scale + delta), two_sided(threshold * scale - delta)


def lattice_law(k: np.ndarray) -> np.ndarray:
    """P(K = x) for x from -sum|k| to sum|k|, K = sum e_i k_i: per distinct |k| with multiplicity m,
    the m + 1 binomial weights as shifted adds."""
    law = np.ones(1)
    sizes, counts = np.unique(np.abs(k[k != 0]), return_counts=True)
    for v, m in sorted(zip(sizes.tolist(), counts.tolist()), key=lambda vm: vm[0] * vm[1]):
        wider = np.zeros(len(law) + 2 * v * m)
        for j in range(m + 1):
            wider[2 * v * j: 2 * v * j + len(law)] += comb(m, j) / 2 ** m * law
        law = wider
    return law


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


# Questions needed by the paired randomization test, simulated from a pilot's paired differences
NEEDED_TRIALS = 1000  # simulated experiments per n: the power share's standard error is about 0.013 at 0.8
NEEDED_FLIPS = 1000  # random sign vectors per randomization test (Monte Carlo p, Phipson & Smyth 2010)


def randomization_power(diffs, n: int, alpha: float, seed: int, trials: int = NEEDED_TRIALS,
                        flips: int = NEEDED_FLIPS) -> float:
    """Share of `trials` experiments of n questions, drawn with replacement from `diffs`, that the
    two-sided paired randomization test rejects at alpha: p = (1 + #{|sum e_i d_i| >= |sum d_i|}) /
    (flips + 1) over `flips` random sign vectors e (one set for every experiment). Seeded by (seed, n)."""
    rng = np.random.default_rng([seed, n])
    samples = rng.choice(np.asarray(diffs, float), size=(trials, n)).astype(np.float32)
    observed = np.abs(samples.sum(axis=1))
    threshold = observed - 1e-6 * np.maximum(1.0, observed)      # float32 sums of the same values
    beyond = np.zeros(trials)
    block = max(1, 4_000_000 // n)                                # sign vectors a block (16 MB)
    for start in range(0, flips, block):
        signs = rng.choice(np.array([-1, 1], np.float32), size=(min(block, flips - start), n))
        beyond += (np.abs(signs @ samples.T) >= threshold).sum(axis=0)
    return float(np.mean((1 + beyond) / (flips + 1) <= alpha))


def randomization_needed(diffs, effect: float, alpha: float = 0.05, power: float = 0.8, max_n: int = 100_000,
                         seed: int = 0) -> int | None:
    """The smallest n at which randomization_power, on the pilot's paired differences centred and
    shifted to a mean of `effect` (their spread kept), reaches `power`: doubling from the normal
    approximation's n to bracket it, then bisection; the same seed gives the same n. None when the
    differences are all equal (no spread to plan with) or n > max_n."""
    d = np.asarray(diffs, float)
    if len(d) < 2 or effect == 0 or np.ptp(d) == 0:
        return None
    shifted = d - d.mean() + abs(effect)

    def reaches(n: int) -> bool:
        return randomization_power(shifted, n, alpha, seed) >= power

    z = float(NormalDist().inv_cdf(1 - alpha / 2) + NormalDist().inv_cdf(power))
    hi = min(max(2, ceil((z * d.std(ddof=1) / effect) ** 2)), max_n)
    lo = 1
    while not reaches(hi):                                        # power(lo) < target <= power(hi)
        if hi >= max_n:
            return None
        lo, hi = hi, min(2 * hi, max_n)
    if lo == 1:
        lo = hi // 2
        while lo > 1 and reaches(lo):
            lo, hi = lo // 2, lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reaches(mid) else (mid, hi)
    return hi


# Equivalence (TOST: two one-sided tests, Schuirmann 1987): B and A are equivalent within +-margin
# when both H01: diff <= -margin and H02: diff >= +margin are rejected at alpha; p = the larger p.

NUISANCE_GRID = 400  # discordances at which the exact unconditional TOST takes its supremum


def _d_cdf(d: int, n: int, discordance: np.ndarray, diff: float) -> np.ndarray:
    """P(D <= d) per discordance psi, D = only_a - only_b of n questions with P(+1) - P(-1) = diff:
    M ~ Binomial(n, psi) discordant, only_a | M = m ~ Binomial(m, (1 + diff / psi) / 2)."""
    from scipy.stats import binom
    psi = np.asarray(discordance, float)[:, None]
    if not psi.size:
        return np.zeros(0)
    m = np.arange(int(binom.ppf(1e-17, n, psi.min())), int(binom.isf(1e-17, n, psi.max())) + 1)[None, :]
    pi = np.clip((1 + diff / psi) / 2, 0.0, 1.0)
    return np.sum(binom.pmf(m, n, psi) * binom.cdf(np.floor((d + m) / 2), m, pi), axis=1)


NUISANCE_LEVEL = 0.001  # Berger & Boos's gamma: the discordance's confidence set is 1 - gamma, gamma added to p


def _nuisance(margin: float, discordant: int, n: int) -> np.ndarray:
    """The discordances a difference of `margin` allows (psi >= margin) inside the 1 - gamma
    Clopper-Pearson interval of the observed discordance, denser near its lower end; empty when the
    interval lies below the margin."""
    from scipy.stats import beta
    g = NUISANCE_LEVEL
    lo = beta.ppf(g / 2, discordant, n - discordant + 1) if discordant > 0 else 0.0
    hi = beta.ppf(1 - g / 2, discordant + 1, n - discordant) if discordant < n else 1.0
    lo = max(lo, margin)
    if hi < lo:
        return np.array([])
    return lo + (hi - lo) * np.linspace(0, 1, NUISANCE_GRID) ** 2


def binomial_tost(only_a: int, only_b: int, n: int, margin: float) -> dict:
    """Exact unconditional TOST of the failure-rate difference diff = (only_a - only_b) / n within
    +-margin. D = only_a - only_b is the sum of n paired differences in {+1, -1, 0}; under a boundary
    diff = +-margin the discordance psi is a nuisance parameter. Berger & Boos (1994): each one-sided p
    is the supremum over psi in the 1 - gamma confidence interval of the observed discordance (on
    NUISANCE_GRID points), plus gamma: p_upper = sup P(D <= d | diff = +margin) + gamma, p_lower =
    sup P(D >= d | diff = -margin) + gamma. Not conditional on the discordant count, so few
    discordant questions are not by themselves evidence of equivalence."""
    d, m = only_a - only_b, only_a + only_b
    grid = _nuisance(margin, m, n)
    sup = lambda x: float(_d_cdf(x, n, grid, margin).max()) if len(grid) else 0.0  # noqa: E731
    p_hi, p_lo = sup(d) + NUISANCE_LEVEL, sup(-d) + NUISANCE_LEVEL   # D's law at -margin is -D's at +margin
    return {"p_lower": min(1.0, p_lo), "p_upper": min(1.0, p_hi), "p": min(1.0, max(p_lo, p_hi)),
            "method": "exact unconditional (Berger-Boos)", "gamma": NUISANCE_LEVEL}


def randomization_tail(d, t: float) -> tuple[float, float]:
    """Bounds on P(T >= t), T = sum e_i d_i over random signs (equal when exact), from the two-sided
    law of randomization_test (T is symmetric): P(T >= t) = P(|T| >= t) / 2 for t > 0, else
    1 - P(|T| > |t|) / 2; a sum within 1e-9 of t counts as reaching it."""
    d = np.asarray(d, float)
    d = d[d != 0]
    zeros = np.zeros(len(d))
    size = abs(t)
    tol = 1e-9 * max(1.0, size)
    threshold = size - tol if t > 0 else size + tol
    sizes, counts = np.unique(np.abs(d), return_counts=True)
    if not len(d):
        low = high = 1.0 if threshold <= 0 else 0.0
    elif prod(int(m) + 1 for m in counts) <= SUPPORT_MAX:
        low = high = exact_tail(sizes, counts, threshold)
    else:
        low, high, _ = grid_bounds(zeros, d, threshold)
    if t > 0:
        return low / 2, high / 2
    return 1 - high / 2, 1 - low / 2


def randomization_tost(a, b, margin: float) -> dict:
    """TOST of mean(b - a) within +-margin by the paired randomization test shifted by the margin:
    H01 (mean <= -margin) on d_i + margin, one-sided upper p = P(T >= sum(d_i + margin)); H02 (mean >=
    +margin) on d_i - margin, lower p = P(T <= sum(d_i - margin)). Every question counts (a zero
    difference shifts to +-margin). p and its bounds: the larger of the two."""
    d = np.asarray(b, float) - np.asarray(a, float)
    low_lo, high_lo = randomization_tail(d + margin, float(np.sum(d + margin)))
    low_hi, high_hi = randomization_tail(-(d - margin), float(-np.sum(d - margin)))
    bounds = [max(low_lo, low_hi), max(high_lo, high_hi)]
    return {"p_lower": (low_lo + high_lo) / 2, "p_upper": (low_hi + high_hi) / 2, "p": sum(bounds) / 2,
            "p_bounds": bounds, "p_method": "exact" if bounds[0] == bounds[1] else "bounded"}


def binary_equivalence_needed(discordance: float, margin: float, alpha: float = 0.05, power: float = 0.8,
                              max_n: int = 100_000) -> int | None:
    """Questions for the failure-rate TOST to show equivalence within +-margin when the true difference
    is 0, by the normal approximation of the paired difference (variance psi / n at diff 0; Liu et al.
    2002; Chow, Shao & Wang 2008, 3.2): n = (z_{1-alpha} + z_{1-(1-power)/2})^2 psi / margin^2 (at
    least 1: with no discordance a single question shows nothing, so psi is floored at 1 / n)."""
    from statistics import NormalDist
    z = NormalDist().inv_cdf(1 - alpha) + NormalDist().inv_cdf(1 - (1 - power) / 2)
    needed = ceil(z * z * max(discordance, 1e-12) / margin ** 2)
    return needed if needed <= max_n else None


# Clusters in the power analysis: the design effect (Kish 1965; Donner & Klar 2000, 2.4)
# deff = 1 + (m - 1) ICC, m the mean cluster size and ICC the one-way ANOVA estimate of the intra-cluster
# correlation of the paired differences; n questions weigh as n / deff independent ones.

def intracluster_correlation(values, clusters) -> float:
    """One-way ANOVA estimator (Donner & Klar 2000, eq. 2.1): (MSB - MSW) / (MSB + (m0 - 1) MSW), m0 =
    (N - sum n_j^2 / N) / (k - 1) for unequal sizes; 0 when it is undefined (one cluster, or all singletons)."""
    x = np.asarray(values, float)
    labels, idx = np.unique(np.asarray(clusters), return_inverse=True)
    k, n = len(labels), len(x)
    if k < 2 or k == n:
        return 0.0
    size = np.bincount(idx, minlength=k).astype(float)
    means = np.bincount(idx, weights=x, minlength=k) / size
    msb = float(np.sum(size * (means - x.mean()) ** 2) / (k - 1))
    msw = float(np.sum((x - means[idx]) ** 2) / (n - k))
    m0 = (n - np.sum(size ** 2) / n) / (k - 1)
    denom = msb + (m0 - 1) * msw
    return float((msb - msw) / denom) if denom > 0 else 0.0


def design_effect(values, clusters) -> dict:
    """{icc, mean_size, deff}: deff = 1 + (mean size - 1) ICC, floored at 1 (a negative ICC would
    promise more than independent questions give: not planned on)."""
    labels = np.unique(np.asarray(clusters))
    mean_size = len(values) / len(labels) if len(labels) else 1.0
    icc = intracluster_correlation(values, clusters)
    return {"icc": icc, "mean_size": float(mean_size), "deff": max(1.0, 1 + (mean_size - 1) * icc)}


def clustered(power_of, deff: float):
    """power_of with n questions counted as n / deff independent ones (rounded down)."""
    return lambda n, discordance, diff, alpha: power_of(int(n / deff), discordance, diff, alpha)


def cluster_bootstrap_bca(fail_a: np.ndarray, fail_b: np.ndarray, clusters: np.ndarray,
                          seed: int, n_resamples: int, level: float = 0.95) -> tuple[float, float]:
    """BCa interval (Efron 1987; Efron & Tibshirani 1993, 14.3) of mean(b) - mean(a) on the draws of
    cluster_bootstrap_diff (same seed, same resampled clusters): bias correction z0 = Phi^-1 of the share
    of draws below the estimate (ties half, as scipy.stats.bootstrap), acceleration from the jackknife
    leaving one cluster out, a = sum(u^3) / (6 (sum u^2)^1.5), u = mean jackknife - each."""
    from scipy.stats import norm
    diff_sum, size, stats = _cluster_draws(fail_a, fail_b, clusters, seed, n_resamples)
    theta = diff_sum.sum() / size.sum()
    share = (np.sum(stats < theta) + np.sum(stats <= theta)) / (2 * n_resamples)
    z0 = float(norm.ppf(share))
    jack = (diff_sum.sum() - diff_sum) / (size.sum() - size) if len(size) > 1 else np.array([theta])
    u = jack.mean() - jack
    denom = 6 * np.sum(u ** 2) ** 1.5
    a = float(np.sum(u ** 3) / denom) if denom > 0 else 0.0
    if not np.isfinite(z0):                         # every draw on one side: no correction defined
        return float(stats.min()), float(stats.max())
    z = norm.ppf([(1 - level) / 2, 1 - (1 - level) / 2])
    alphas = norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
    lo, hi = np.quantile(stats, alphas)
    return float(lo), float(hi)


def benjamini_hochberg(pvalues) -> list[float]:
    """Benjamini-Hochberg (1995) step-up adjusted p values (FDR), in the input order: the i-th
    smallest of m (i from 1) times m / i, made non-decreasing from the largest down, capped at 1."""
    p = np.asarray(pvalues, float)
    m = len(p)
    if not m:
        return []
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return [float(x) for x in adjusted]
