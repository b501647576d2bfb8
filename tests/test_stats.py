"""Paired statistics against independent implementations and the reference's figures."""
import numpy as np
import pytest
from scipy.stats import binomtest

from ctxret.stats import cluster_bootstrap_diff, paired_counts, sign_test


@pytest.mark.parametrize("a", range(0, 13))
@pytest.mark.parametrize("b", range(0, 13))
def test_sign_test_equals_scipy_binomtest(a, b):
    expected = 1.0 if a + b == 0 else binomtest(a, a + b, 0.5, alternative="two-sided").pvalue
    assert sign_test(a, b) == pytest.approx(expected, abs=1e-12)


def test_sign_test_reproduces_the_reference_figures():
    assert round(sign_test(9, 6), 3) == 0.607
    assert round(sign_test(3, 5), 3) == 0.727


def test_paired_counts_partition_the_questions():
    a = np.array([1, 1, 0, 0, 1, 0], bool)
    b = np.array([1, 0, 1, 0, 1, 1], bool)
    counts = paired_counts(a, b)
    assert counts == {"both_hit": 2, "both_missed": 1, "only_a": 1, "only_b": 2}
    assert sum(counts.values()) == len(a)


def _outcomes(seed=0, n=400):
    rng = np.random.default_rng(seed)
    fail_a = rng.random(n) < 0.35
    fail_b = rng.random(n) < 0.30
    clusters = np.array([str(i // 2) for i in range(n)])
    return fail_a, fail_b, clusters


def test_bootstrap_is_reproducible_with_a_seed_and_moves_with_another():
    fail_a, fail_b, clusters = _outcomes()
    first = cluster_bootstrap_diff(fail_a, fail_b, clusters, seed=42, n_resamples=10_000)
    again = cluster_bootstrap_diff(fail_a, fail_b, clusters, seed=42, n_resamples=10_000)
    other = cluster_bootstrap_diff(fail_a, fail_b, clusters, seed=7, n_resamples=10_000)
    assert first == again
    assert first != other


def test_bootstrap_interval_brackets_the_observed_difference():
    fail_a, fail_b, clusters = _outcomes(seed=3)
    lo, hi = cluster_bootstrap_diff(fail_a, fail_b, clusters, seed=42, n_resamples=5_000)
    observed = fail_b.mean() - fail_a.mean()
    assert lo <= observed <= hi


def test_identical_conditions_give_a_zero_width_interval():
    fail_a, _, clusters = _outcomes()
    assert cluster_bootstrap_diff(fail_a, fail_a, clusters, seed=42, n_resamples=1_000) == (0.0, 0.0)
