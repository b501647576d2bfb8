"""The power method checked by simulation: paired data sets drawn with a known discordance and
difference, tested as pairs tests them (the exact sign test, the cluster-bootstrap interval),
the share that reject set beside ctxret.evaluation.stats's predictions.

Each of n questions is, independently, discordant with probability psi; a discordant question
is won by B (A misses, B hits) with probability pi = (1 + |delta| / psi) / 2, by A otherwise,
so that E[fail_B - fail_A] = -|delta|. Concordant questions add nothing to either test. Questions
form clusters of `cluster_size` consecutive ids (as h07 and p07 do) but are drawn independently,
the case the predictions assume (ctxret.evaluation.stats: paired_power, interval_power).
"""
from __future__ import annotations

import numpy as np

from ctxret.evaluation.stats import cluster_bootstrap_diff, interval_power, paired_power, sign_test


def paired_samples(n: int, discordance: float, diff: float, reps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(fail_a, fail_b), boolean arrays of shape (reps, n)."""
    rng = np.random.default_rng(seed)
    pi = (1 + abs(diff) / discordance) / 2
    discordant = rng.random((reps, n)) < discordance
    b_wins = rng.random((reps, n)) < pi
    return discordant & b_wins, discordant & ~b_wins


def simulated_power(n: int, discordance: float, diff: float, alpha: float, reps: int, seed: int,
                    resamples: int = 0, cluster_size: int = 2) -> dict:
    """{predicted_sign, sign, predicted_interval, bootstrap}: each test's predicted power and the
    share of `reps` data sets in which the sign test rejects at alpha and (with `resamples`) the
    1 - alpha cluster-bootstrap interval of the difference excludes 0."""
    fail_a, fail_b = paired_samples(n, discordance, diff, reps, seed)
    only_b, only_a = fail_a.sum(axis=1), fail_b.sum(axis=1)
    out = {"n": n, "discordance": discordance, "diff": diff, "reps": reps,
           "predicted_sign": paired_power(n, discordance, diff, alpha),
           "predicted_interval": interval_power(n, discordance, diff, alpha),
           "sign": float(np.mean([sign_test(int(a), int(b)) <= alpha for a, b in zip(only_a, only_b)]))}
    if resamples:
        clusters = np.arange(n) // cluster_size
        excluded = 0
        for i in range(reps):
            lo, hi = cluster_bootstrap_diff(fail_a[i], fail_b[i], clusters, seed + i, resamples, 1 - alpha)
            excluded += hi < 0 or lo > 0
        out["bootstrap"] = excluded / reps
    return out
