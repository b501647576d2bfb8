"""Cluster-aware power: the ICC and design effect against a direct computation (the ANOVA sums
written out cluster by cluster), and the clustered power against simulation of clustered data."""
from __future__ import annotations

import numpy as np
import pytest

from ctxret.evaluation.stats import (cluster_bootstrap_diff, clustered, design_effect, interval_power,
                                     intracluster_correlation, min_detectable_diff, questions_needed)


def direct_icc(values, clusters) -> float:
    """Donner & Klar's ANOVA estimator, cluster by cluster in plain Python."""
    groups: dict = {}
    for v, c in zip(values, clusters):
        groups.setdefault(c, []).append(float(v))
    n, k = len(values), len(groups)
    grand = sum(values) / n
    ssb = sum(len(g) * (sum(g) / len(g) - grand) ** 2 for g in groups.values())
    ssw = sum((x - sum(g) / len(g)) ** 2 for g in groups.values() for x in g)
    msb, msw = ssb / (k - 1), ssw / (n - k)
    m0 = (n - sum(len(g) ** 2 for g in groups.values()) / n) / (k - 1)
    return (msb - msw) / (msb + (m0 - 1) * msw)


@pytest.mark.parametrize("seed", range(3))
def test_the_icc_and_the_design_effect_match_a_direct_computation(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 4, size=30)
    clusters = np.repeat(np.arange(30), sizes)
    shared = rng.normal(size=30)[clusters]
    values = np.round(shared + rng.normal(size=len(clusters)))
    icc = intracluster_correlation(values, clusters)
    assert icc == pytest.approx(direct_icc(values, clusters), rel=1e-12)
    d = design_effect(values, clusters)
    assert d["mean_size"] == pytest.approx(len(values) / 30)
    assert d["deff"] == pytest.approx(max(1.0, 1 + (len(values) / 30 - 1) * icc))


def test_singletons_have_no_design_effect_and_copies_double_it():
    x = np.array([1.0, 0, -1, 0, 1, 1, 0, -1])
    assert design_effect(x, np.arange(8))["deff"] == 1.0
    twice = np.repeat(x, 2)                            # each question and an exact paraphrase
    d = design_effect(twice, np.repeat(np.arange(8), 2))
    assert d["icc"] == pytest.approx(1.0) and d["deff"] == pytest.approx(2.0)


def test_the_clustered_interval_power_agrees_with_simulated_clustered_data():
    """Pairs of questions sharing their outcome with probability rho: the cluster-bootstrap interval's
    rejection rate against the design-effect prediction (deff = 1 + rho for pairs)."""
    n, psi, diff, rho, reps = 200, 0.3, 0.12, 0.6, 300
    rng = np.random.default_rng(11)
    p_plus, p_minus = (psi + diff) / 2, (psi - diff) / 2
    clusters = np.repeat(np.arange(n // 2), 2)
    rejections = 0
    for r in range(reps):
        first = rng.choice([1, -1, 0], size=n // 2, p=[p_plus, p_minus, 1 - psi])
        second = np.where(rng.random(n // 2) < rho, first, rng.choice([1, -1, 0], size=n // 2,
                                                                        p=[p_plus, p_minus, 1 - psi]))
        d = np.column_stack([first, second]).ravel().astype(float)
        lo, hi = cluster_bootstrap_diff(np.zeros(n), d, clusters, r, 500)
        rejections += lo > 0 or hi < 0
    simulated = rejections / reps
    predicted = clustered(interval_power, 1 + rho)(n, psi, diff, 0.05)
    independent = interval_power(n, psi, diff, 0.05)
    assert abs(simulated - predicted) < 0.08           # 300 data sets: Monte Carlo sd about 0.03
    assert abs(simulated - predicted) < abs(simulated - independent)


def test_the_clustered_plan_asks_for_deff_times_the_questions():
    psi, diff, deff = 0.2, 0.05, 1.4
    plain = questions_needed(psi, diff, power_of=interval_power)
    many = questions_needed(psi, diff, power_of=clustered(interval_power, deff))
    assert abs(many - plain * deff) <= deff + 1
    assert min_detectable_diff(100, psi, power_of=clustered(interval_power, deff)) > \
        min_detectable_diff(100, psi, power_of=interval_power)
