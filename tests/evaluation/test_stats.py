"""Paired statistics against independent implementations and the reference's figures."""
import numpy as np
import pytest
from scipy.stats import binom, binomtest, multinomial

from ctxret.evaluation.stats import (cluster_bootstrap_diff, holm, min_detectable_diff, paired_counts, paired_power,
                                     questions_needed, sign_test, sign_test_power, wilson_interval)


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


# --- Holm ------------------------------------------------------------------------------------

def test_holm_matches_a_hand_computation():
    # sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04 -> 0.06, monotone)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    assert holm([0.5, 0.9]) == [1.0, 1.0]                          # 2 x 0.5 = 1, and never below it
    assert holm([]) == []


def _holm_reference(p):
    """Holm by its definition: reject H_(i) while p_(j) <= alpha / (m - j) for all j <= i; the
    adjusted p value is the smallest alpha at which H_i is rejected (found on a fine grid)."""
    m, order = len(p), sorted(range(len(p)), key=lambda i: p[i])
    out = [1.0] * m
    for alpha in np.linspace(0, 1, 20001):
        for j, i in enumerate(order):
            if p[i] > alpha / (m - j):
                break
            out[i] = min(out[i], alpha)
    return out


def test_holm_matches_the_step_down_definition():
    rng = np.random.default_rng(1)
    p = list(rng.random(7) * 0.2)
    assert holm(p) == pytest.approx(_holm_reference(p), abs=1e-4)


# --- Wilson ----------------------------------------------------------------------------------

@pytest.mark.parametrize("k,n", [(0, 12), (1, 56), (7, 56), (12, 12), (30, 100)])
def test_wilson_interval_equals_scipy(k, n):
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson_interval(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12)


# --- power -----------------------------------------------------------------------------------

@pytest.mark.parametrize("m", range(0, 41))
def test_sign_test_power_equals_brute_force_over_all_outcomes(m):
    """Every outcome x of m discordant questions, scipy's binomial test deciding rejection."""
    for pi in (0.5, 0.7, 0.95):
        expected = sum(binom.pmf(x, m, pi) for x in range(m + 1)
                       if m and binomtest(x, m, 0.5).pvalue <= 0.05)
        assert sign_test_power(m, pi)[0] == pytest.approx(expected, abs=1e-12)


def _paired_power_brute_force(n, psi, diff, alpha=0.05):
    """All (only_a, only_b, concordant) outcomes of n questions, multinomial probabilities."""
    p_b, p_a = (psi + diff) / 2, (psi - diff) / 2   # B wins a discordant question with p_b
    total = 0.0
    for a in range(n + 1):
        for b in range(n + 1 - a):
            if a + b and binomtest(b, a + b, 0.5).pvalue <= alpha:
                total += multinomial.pmf([a, b, n - a - b], n, [p_a, p_b, 1 - psi])
    return total


@pytest.mark.parametrize("n,psi,diff", [(20, 0.3, 0.2), (30, 0.2, 0.1), (25, 0.5, 0.1), (16, 0.25, 0.25)])
def test_paired_power_equals_brute_force(n, psi, diff):
    assert paired_power(n, psi, diff) == pytest.approx(_paired_power_brute_force(n, psi, diff), abs=1e-9)
    assert paired_power(n, psi, -diff) == paired_power(n, psi, diff)


@pytest.mark.parametrize("psi,diff", [(0.125, 0.05), (0.2, 0.1), (0.05, 0.04)])
def test_paired_power_grows_with_n_and_with_the_difference(psi, diff):
    by_n = [paired_power(n, psi, diff) for n in range(10, 400, 3)]
    assert all(b >= a - 1e-12 for a, b in zip(by_n, by_n[1:]))
    by_diff = [paired_power(100, psi, d) for d in np.linspace(0, psi, 15)]
    assert all(b >= a - 1e-12 for a, b in zip(by_diff, by_diff[1:]))
    assert paired_power(100, psi, 0) <= 0.05                     # no difference: at most alpha


def test_min_detectable_diff_is_where_the_power_reaches_the_target():
    n, psi = 200, 0.2
    mdd = min_detectable_diff(n, psi)
    assert 0 < mdd < psi
    assert paired_power(n, psi, mdd) >= 0.8 > paired_power(n, psi, mdd - 1e-4)
    assert min_detectable_diff(400, psi) < mdd                    # more questions, smaller difference
    assert min_detectable_diff(56, 2 / 56) is None                 # 2 discordant of 56: never 80 %


def test_questions_needed_is_the_first_n_reaching_the_power():
    psi, diff = 0.2, 0.08
    n = questions_needed(psi, diff)
    assert paired_power(n, psi, diff) >= 0.8 > paired_power(n - 1, psi, diff)
    assert questions_needed(psi, 0.04) > n                         # half the difference: more questions
    assert questions_needed(psi, 0) is None
    assert questions_needed(0.3, 0.001, max_n=5_000) is None       # beyond the search limit


def test_wilson_interval_holds_its_proportion_at_zero_and_all_for_every_n_to_500():
    for n in range(1, 501):
        assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0
        for k in (0, n):
            lo, hi = wilson_interval(k, n)
            assert lo <= k / n <= hi


def test_the_failure_plot_draws_zero_and_all_failures_for_every_n_to_500(tmp_path):
    from ctxret.presentation.figures import plot_failures
    from ctxret.stages.plots import failure_points
    results = [{"group": "HP", "condition": f"{k}/{n}", "retriever": "e5",
                "summary": {"fail@5": {"n": k, "N": n, "rate": k / n}}}
               for n in range(1, 501) for k in (0, n)]
    points = failure_points({"results": results}, "HP", 5, {"e5": "dense"})
    assert len(points) == 1000
    for p in points:                                   # matplotlib refuses a negative error bar
        assert 0.0 <= p["lo"] <= p["rate"] <= p["hi"] <= 1.0
    drawn = tmp_path / "failure.png"
    plot_failures({"fail@5": [p for p in points if p["N"] in (7, 9, 12, 14, 18, 24, 152)]}, str(drawn))
    assert drawn.stat().st_size > 0
