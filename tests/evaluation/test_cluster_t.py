"""The cluster-robust t interval (ctxret.evaluation.stats.cluster_t_interval) against separate code:
scipy's paired and one-sample t intervals where they coincide with it, and the sandwich estimator
written out as matrices for clusters of unequal size."""
import numpy as np
import pytest
from scipy import stats

from ctxret.evaluation.stats import cluster_t_interval


def test_with_every_question_its_own_cluster_it_is_scipys_paired_t_interval():
    rng = np.random.default_rng(3)
    a, b = rng.random(40) < 0.4, rng.random(40) < 0.3
    ci = stats.ttest_rel(b.astype(float), a.astype(float)).confidence_interval(0.95)
    assert cluster_t_interval(a, b, np.arange(40)) == pytest.approx([ci.low, ci.high], abs=1e-12)


def test_with_clusters_of_one_size_it_is_the_t_interval_of_the_cluster_means():
    rng = np.random.default_rng(4)
    a, b = rng.random(60), rng.random(60)
    clusters = np.repeat(np.arange(20), 3)
    means = np.bincount(clusters, weights=b - a) / 3
    ci = stats.ttest_1samp(means, 0).confidence_interval(0.90)
    assert cluster_t_interval(a, b, clusters, level=0.90) == pytest.approx([ci.low, ci.high], abs=1e-12)


def test_with_clusters_of_unequal_size_it_is_the_sandwich_estimator_of_the_intercept():
    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 5, size=15)
    clusters = np.repeat(np.arange(15), sizes)
    a, b = rng.random(len(clusters)) < 0.5, rng.random(len(clusters)) < 0.4
    y = b.astype(float) - a
    x = np.ones((len(y), 1))
    beta = np.linalg.solve(x.T @ x, x.T @ y)
    u = y - x @ beta
    meat = sum(np.outer(x[clusters == g].T @ u[clusters == g], x[clusters == g].T @ u[clusters == g])
               for g in range(15))
    bread = np.linalg.inv(x.T @ x)
    g = 15
    se = np.sqrt((g / (g - 1) * bread @ meat @ bread)[0, 0])
    q = stats.t.ppf(0.975, g - 1)
    assert cluster_t_interval(a, b, clusters) == pytest.approx([beta[0] - q * se, beta[0] + q * se], abs=1e-12)


def test_one_cluster_gives_no_interval_and_equal_differences_a_point():
    assert cluster_t_interval(np.zeros(5), np.ones(5), np.zeros(5)) is None
    assert cluster_t_interval(np.zeros(6), np.ones(6), np.arange(6)) == [1.0, 1.0]
