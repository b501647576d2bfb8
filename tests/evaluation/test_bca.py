"""The BCa cluster-bootstrap interval against scipy.stats.bootstrap(method='BCa') on unclustered data
(each cluster one question), and its invariances."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import bootstrap

from ctxret.evaluation.stats import cluster_bootstrap_bca, cluster_bootstrap_diff


@pytest.mark.parametrize("seed, n, kind", [(0, 60, "binary"), (1, 200, "binary"), (2, 80, "skewed")])
def test_bca_matches_scipy_on_unclustered_data(seed, n, kind):
    rng = np.random.default_rng(seed)
    if kind == "binary":
        a, b = (rng.random(n) < 0.3).astype(float), (rng.random(n) < 0.2).astype(float)
    else:
        a, b = np.zeros(n), rng.exponential(size=n) ** 2     # a skewed difference: BCa moves off the percentile
    ours = cluster_bootstrap_bca(a, b, np.arange(n), seed, 40_000)
    theirs = bootstrap((a, b), lambda x, y, axis: np.mean(y, axis=axis) - np.mean(x, axis=axis), paired=True,
                       vectorized=True, n_resamples=40_000, method="BCa", random_state=seed).confidence_interval
    # Monte Carlo (two sets of 40,000 draws; about 0.03 se apart at the skewed upper end): 10 % of the
    # standard error, or one step of a discrete law (1/n on binary data)
    se = np.std(b - a) / np.sqrt(n)
    tol = max(0.1 * se, (1 / n + 1e-12) if kind == "binary" else 0)
    assert ours[0] == pytest.approx(theirs.low, abs=tol)
    assert ours[1] == pytest.approx(theirs.high, abs=tol)
    if kind == "skewed":                                 # where BCa and the percentile interval part
        pct = cluster_bootstrap_diff(a, b, np.arange(n), seed, 40_000)
        assert abs(pct[1] - theirs.high) > 2 * tol or abs(pct[0] - theirs.low) > 2 * tol


def test_bca_is_the_percentile_interval_when_the_draws_are_symmetric_and_unbiased():
    """A difference symmetric about its mean (each value and its mirror): z0 near 0, a = 0."""
    d = np.array([-2.0, -1, 0, 1, 2] * 20)
    n = len(d)
    bca = cluster_bootstrap_bca(np.zeros(n), d, np.arange(n), 5, 20_000)
    pct = cluster_bootstrap_diff(np.zeros(n), d, np.arange(n), 5, 20_000)
    assert bca == pytest.approx(pct, abs=0.02)


def test_bca_resamples_whole_clusters():
    """Every question copied twice in one cluster: the same interval as the questions alone."""
    rng = np.random.default_rng(4)
    a, b = (rng.random(50) < 0.4).astype(float), (rng.random(50) < 0.3).astype(float)
    alone = cluster_bootstrap_bca(a, b, np.arange(50), 9, 5000)
    copied = cluster_bootstrap_bca(np.repeat(a, 2), np.repeat(b, 2), np.repeat(np.arange(50), 2), 9, 5000)
    assert copied == pytest.approx(alone, abs=1e-12)
