"""The paired randomization test of the continuous measures (ctxret.evaluation.stats.randomization_test, through
ctxret.evaluation.paired.compare_continuous): its p against computations written apart from it
(tests/independent_randomization.py) and against scipy.stats.permutation_test, on the per-question
MRR@10 and nDCG@10 of real runs (tests/data/randomization: the demo's 56 H+P questions and 400
KorQuAD dev questions) and on made-up ones."""
import json
from pathlib import Path

import numpy as np
import pytest
from independent_randomization import float_sum_p, fourier_bounds, reciprocal_rank_p, scipy_p

from ctxret.evaluation import paired
from ctxret.evaluation.stats import BOUND_GAP, randomization_test
from ctxret.presentation.pages import randomization_p

REAL_VALUES = Path(__file__).parents[1] / "data" / "randomization"
SCIPY_DRAWS = 200_000


def real_pairs(name: str):
    """Each stored comparison, with our test of it as the pairs stage runs it."""
    real = json.loads((REAL_VALUES / f"{name}.json").read_text(encoding="utf-8"))
    qids, clusters = real["qids"], {q: q for q in real["qids"]}
    for pair in real["pairs"]:
        a, b = ({q: {pair["measure"]: v} for q, v in zip(qids, pair[f"{side}_values"])} for side in "ab")
        yield pair, paired.compare_continuous(a, b, qids, pair["measure"], clusters, 42, 2000)


def independent(pair: dict) -> tuple[float, float]:
    """Bounds on p from the separate implementation (equal when it is exact)."""
    a, b = pair["a_values"], pair["b_values"]
    exact = reciprocal_rank_p(a, b) if pair["measure"].startswith("RR@") else float_sum_p(a, b, max_sums=20_000)
    return (exact, exact) if exact is not None else fourier_bounds(a, b, points=2 ** 22)


@pytest.mark.parametrize("name", ["demo", "korquad"])
def test_randomization_p_values_equal_an_independent_computation_to_three_decimals(name):
    """MRR@10: exact on both sides (reciprocal ranks as Fractions), equal. nDCG@10: exact sums on both
    sides where few questions differ, equal; otherwise each side's bounds hold whatever its grid's
    rounding, so they overlap, ours are within 0.0001 and the p values agree to three decimals."""
    for pair, ours in real_pairs(name):
        low, high = independent(pair)
        theirs = (low + high) / 2
        print(f"{name} {pair['a']} vs {pair['b']} {pair['measure']}: {ours['nonzero']} differ, ours {ours['p']:.6f} "
              f"{ours['p_method']} [{ours['p_bounds'][0]:.6f}, {ours['p_bounds'][1]:.6f}], independent "
              f"[{low:.6f}, {high:.6f}]")
        if pair["measure"] == "RR@10":
            assert ours["p_method"] == "exact" and abs(ours["p"] - theirs) < 1e-12
        assert ours["p_bounds"][0] - 1e-12 <= high and low <= ours["p_bounds"][1] + 1e-12
        assert ours["p_bounds"][1] - ours["p_bounds"][0] < 0.0001
        assert round(ours["p"], 3) == round(theirs, 3) and abs(ours["p"] - theirs) < 0.0005


@pytest.mark.parametrize("name", ["demo", "korquad"])
def test_randomization_p_values_agree_with_scipys_permutation_test(name):
    """scipy enumerates every sign vector up to 20 questions differing: equal. Beyond, it draws
    SCIPY_DRAWS of them: ours is within three of its standard errors (at most 0.0034)."""
    for pair, ours in real_pairs(name):
        exact = ours["nonzero"] <= 20
        theirs = scipy_p(pair["a_values"], pair["b_values"], None if exact else SCIPY_DRAWS)
        sampling = 3 * np.sqrt(theirs * (1 - theirs) / SCIPY_DRAWS) + 1e-5
        assert abs(ours["p"] - theirs) < (1e-12 if exact else sampling)


def reciprocal_ranks(ranks) -> np.ndarray:
    return np.array([1 / r if r <= 10 else 0.0 for r in ranks])


def gains(ranks) -> np.ndarray:
    return np.array([1 / np.log2(r + 1) if r <= 10 else 0.0 for r in ranks])


def test_many_questions_differing_get_an_exact_p_with_ties_counted():
    """300 questions, over 100 of them differing by one of a few sizes: many sign vectors reach the
    observed sum exactly (in another order); all of them count, as in a count over exact fractions."""
    rng = np.random.default_rng(3)
    ranks_a = rng.choice([1, 2, 11], size=300, p=[0.5, 0.2, 0.3])
    ranks_b = np.where(rng.random(300) < 0.2, ranks_a, rng.choice([1, 2, 11], size=300, p=[0.55, 0.2, 0.25]))
    for values in (reciprocal_ranks, gains):
        test = randomization_test(values(ranks_a), values(ranks_b))
        assert test["method"] == "exact" and test["nonzero"] > 100
        assert test["p"] == pytest.approx(reciprocal_rank_p(reciprocal_ranks(ranks_a), reciprocal_ranks(ranks_b))
                                          if values is reciprocal_ranks else
                                          float_sum_p(values(ranks_a), values(ranks_b)), abs=1e-12)


def test_many_sizes_of_ndcg_differences_get_a_p_between_bounds_that_hold():
    """80 questions differing at any rank up to 12: nDCG's gains lie on no grid, so p is the middle of
    bounds (within BOUND_GAP here) that contain an independent bound's; the page marks it."""
    rng = np.random.default_rng(5)
    ranks_a, ranks_b = rng.integers(1, 13, size=(2, 80))
    ranks_b[:10] = ranks_a[:10]
    a, b = gains(ranks_a), gains(ranks_b)
    test = randomization_test(a, b)
    low, high = fourier_bounds(a, b, points=2 ** 22)
    assert test["method"] == "bounded" and test["bounds"][0] < test["p"] < test["bounds"][1]
    assert test["bounds"][1] - test["bounds"][0] <= BOUND_GAP
    assert test["bounds"][0] - 1e-12 <= high and low <= test["bounds"][1] + 1e-12
    row = {"p": test["p"], "p_method": test["method"], "p_bounds": test["bounds"]}
    assert randomization_p(row) == f"{test['p']:.3f} *"
    assert randomization_p({**row, "p_bounds": [0.0494, 0.0506]}) == "0.049–0.051 *"
    assert randomization_p({**row, "p_method": "exact"}) == f"{test['p']:.3f}"
