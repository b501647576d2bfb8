"""Equivalence (TOST) of a primary comparison: the exact unconditional TOST against the trinomial
enumerated by scipy.stats.multinomial and the binomial laws of scipy.stats.binom, its level by
simulation, the randomization TOST against sign vectors enumerated one by one, the verdict, and the
preregistration's questions needed to show equivalence against a simulated TOST."""
from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from scipy.stats import multinomial, norm

from ctxret.evaluation.paired import compare, compare_continuous, verdict
from ctxret.evaluation.stats import (NUISANCE_LEVEL, _nuisance, binary_equivalence_needed, binomial_tost,
                                     randomization_tost)


def brute_tost(only_a, only_b, n, margin, grid) -> float:
    """Berger-Boos TOST p by enumerating the trinomial (only_a, only_b, agree) at each discordance
    of the same nuisance set (scipy.stats.multinomial, no ctxret arithmetic), plus gamma."""
    d = only_a - only_b
    xa, xb = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = xa + xb <= n
    def sup(obs, diff):
        best = 0.0
        for psi in grid:
            law = multinomial.pmf(np.stack([xa[ok], xb[ok], n - xa[ok] - xb[ok]], -1), n,
                                  [(psi + diff) / 2, (psi - diff) / 2, 1 - psi])
            best = max(best, float(law[(xa[ok] - xb[ok]) <= obs].sum()))
        return best
    return min(1.0, max(sup(d, margin), sup(-d, margin)) + NUISANCE_LEVEL)


@pytest.mark.parametrize("only_a, only_b, n, margin", [(3, 4, 56, 0.1), (10, 2, 56, 0.1), (1, 1, 40, 0.05)])
def test_the_exact_tost_is_the_berger_boos_supremum_of_the_trinomial(only_a, only_b, n, margin):
    from scipy.stats import binom
    grid = _nuisance(margin, only_a + only_b, n)
    r = binomial_tost(only_a, only_b, n, margin)
    d = only_a - only_b

    def cdf(obs, psi):                                   # P(D <= obs) by the binomial laws of M and only_a | M
        m = np.arange(n + 1)
        return float(np.sum(binom.pmf(m, n, psi) * binom.cdf(np.floor((obs + m) / 2), m, (1 + margin / psi) / 2)))
    sides = [(max(cdf(x, psi) for psi in grid), grid[int(np.argmax([cdf(x, psi) for psi in grid]))]) for x in (d, -d)]
    assert r["p"] == pytest.approx(min(1.0, max(v for v, _ in sides) + NUISANCE_LEVEL), abs=1e-12)
    worst = max(sides)[1]                                # the trinomial enumerated at the supremum's psi
    assert r["p"] == pytest.approx(brute_tost(only_a, only_b, n, margin, [worst]), abs=1e-9)


def test_the_exact_tost_keeps_its_level_at_the_margin():
    """Data at diff = +margin: the TOST must reject at most alpha of the time (plus Monte Carlo)."""
    n, margin, alpha = 100, 0.1, 0.05
    rng = np.random.default_rng(5)
    for psi in (0.1, 0.3, 0.6):
        draws = rng.multinomial(n, [(psi + margin) / 2, (psi - margin) / 2, 1 - psi], size=300)
        rate = np.mean([binomial_tost(int(a), int(b), n, margin)["p"] <= alpha for a, b, _ in draws])
        assert rate <= alpha + 0.04                      # 300 draws: Monte Carlo sd about 0.013


def test_few_discordant_questions_are_not_evidence_of_equivalence():
    assert binomial_tost(1, 1, 56, 0.05)["p"] > 0.05     # 2 of 56 differ: the discordance may be 0.2
    assert binomial_tost(6, 6, 400, 0.05)["p"] <= 0.05


def brute_one_sided(d) -> float:
    """P(sum e_i d_i >= sum d_i) over every sign vector, counted one by one."""
    d = np.asarray(d, float)
    t = d.sum()
    hits = sum(np.dot(signs, d) >= t - 1e-9 * max(1.0, abs(t)) for signs in product((-1, 1), repeat=len(d)))
    return hits / 2 ** len(d)


@pytest.mark.parametrize("seed", range(4))
def test_the_randomization_tost_is_the_shifted_one_sided_test(seed):
    rng = np.random.default_rng(seed)
    a = rng.choice([0, 1, 1 / 2, 1 / 3, 1 / 5], size=12)
    b = np.clip(a + rng.choice([0, 0, 0.5, -0.5, 1 / 6], size=12), 0, 1)
    margin = 0.1
    r = randomization_tost(a, b, margin)
    d = b - a
    assert r["p_lower"] == pytest.approx(brute_one_sided(d + margin), abs=1e-12)
    assert r["p_upper"] == pytest.approx(brute_one_sided(-(d - margin)), abs=1e-12)
    assert r["p_method"] == "exact"


def test_the_randomization_tost_stays_within_its_bounds_on_many_questions():
    rng = np.random.default_rng(7)
    a = 1 / np.log2(rng.integers(1, 11, size=300) + 1)
    b = 1 / np.log2(rng.integers(1, 11, size=300) + 1)
    r = randomization_tost(a, b, 0.05)
    assert r["p_bounds"][0] <= r["p"] <= r["p_bounds"][1] and r["p_bounds"][1] - r["p_bounds"][0] < 1e-3


def outcomes(hits: list[bool], ranks=None) -> dict:
    return {f"q{i}": {"Success@5": h, "rank": 1 if h else None, "RR@10": (1.0 if h else 0.0) if ranks is None else ranks[i]}
            for i, h in enumerate(hits)}


def test_a_tight_null_result_reads_equivalent_and_a_wide_one_cannot_be_told_apart():
    n = 400
    rng = np.random.default_rng(0)
    hit_a = rng.random(n) < 0.7
    hit_b = hit_a.copy()
    flip = rng.choice(n, 12, replace=False)
    hit_b[flip] = ~hit_b[flip]                          # 12 discordant, balanced by chance
    qids = [f"q{i}" for i in range(n)]
    clusters = {q: q for q in qids}
    c = compare(outcomes(list(hit_a)), outcomes(list(hit_b)), qids, 5, clusters, 1, 2000, margin=0.05)
    assert c["equivalence"]["equivalent"] and verdict(*c["ci"], c["equivalence"]) == "equivalent"
    small = qids[:20]
    c = compare(outcomes(list(hit_a)), outcomes(list(~hit_a)), small, 5, clusters, 1, 2000, margin=0.05)
    assert not c["equivalence"]["equivalent"]
    assert verdict(-0.1, -0.01, {"equivalent": True}) == "holds"    # a difference shown is still a difference
    assert verdict(-0.01, 0.01, None) == "undecided"


def test_a_continuous_primary_with_a_margin_gets_the_randomization_tost():
    qids = [f"q{i}" for i in range(10)]
    a = outcomes([True] * 10, [1.0, 0.5, 1.0, 1 / 3, 1.0, 0.5, 1.0, 1.0, 0.25, 1.0])
    b = outcomes([True] * 10, [1.0, 0.5, 1.0, 1 / 3, 1.0, 1.0, 1.0, 0.5, 0.25, 1.0])
    c = compare_continuous(a, b, qids, "RR@10", {q: q for q in qids}, 1, 1000, margin=0.2)
    assert c["equivalence"]["p"] == randomization_tost([a[q]["RR@10"] for q in qids],
                                                       [b[q]["RR@10"] for q in qids], 0.2)["p"]
    assert "equivalence" not in compare_continuous(a, b, qids, "RR@10", {q: q for q in qids}, 1, 1000)


def simulated_tost_power(n: int, discordance: float, margin: float, experiments: int, rng) -> float:
    """The share of simulated experiments (true difference 0: only A and only B equally likely) in
    which a TOST written here from scratch (z tests at 0.05 on the paired difference with its
    unconditional variance) shows equivalence within +-margin."""
    x = rng.multinomial(n, [discordance / 2, discordance / 2, 1 - discordance], size=experiments)
    d = (x[:, 0] - x[:, 1]) / n
    se = np.sqrt(np.maximum(((x[:, 0] + x[:, 1]) / n - d ** 2) / n, 1e-12))
    z = norm.ppf(0.95)
    return float(np.mean(((d + margin) / se > z) & ((margin - d) / se > z)))


@pytest.mark.parametrize("discordance, margin", [(0.1, 0.05), (0.3, 0.05), (0.2, 0.1), (0.05, 0.03)])
def test_the_questions_needed_for_equivalence_give_the_planned_power(discordance, margin):
    n = binary_equivalence_needed(discordance, margin, 0.05, 0.8)
    rng = np.random.default_rng(7)
    assert simulated_tost_power(n, discordance, margin, 20_000, rng) == pytest.approx(0.8, abs=0.015)
    assert simulated_tost_power(n // 2, discordance, margin, 20_000, rng) < 0.5   # half as many fall well short
