"""As many questions as the verdict needs (ctxret.evaluation.preregistration): per candidate
primary measure, the questions the smallest effect of interest needs, from a pilot's paired
values, and what generating that many costs by a row of config/prices.yaml."""
import math
import random

from ctxret.contexts.prices import generation_cost, load_prices, model_prices
from ctxret.evaluation.preregistration import needed_for_effect
from ctxret.evaluation.stats import paired_power
from workflow import ROOT


def pilot(n=200, seed=0):
    rng = random.Random(seed)
    hits_a = [rng.random() < 0.7 for _ in range(n)]
    hits_b = [h if rng.random() < 0.8 else not h for h in hits_a]   # a fifth of the questions disagree
    rr_a = [rng.choice([1, 0.5, 1 / 3, 0]) for _ in range(n)]
    rr_b = [min(1.0, max(0.0, r + rng.choice([-0.5, 0, 0, 0.5]))) for r in rr_a]
    return {"failure@5": (hits_a, hits_b), "MRR@10": (rr_a, rr_b), "nDCG@10": (rr_a, rr_a)}


def test_failure_is_planned_by_the_sign_test_and_the_scores_by_the_randomization_test():
    values = pilot()
    needed = needed_for_effect(values, 0.03, 0.05, 0.8)
    failure = needed["failure@5"]
    assert failure["test"] == "sign"
    psi = failure["discordance"]
    assert psi == sum(a != b for a, b in zip(*values["failure@5"])) / 200
    n = failure["needed"]
    assert paired_power(n, psi, 0.03) >= 0.8 > paired_power(n - 1, psi, 0.03)
    mrr = needed["MRR@10"]
    diffs = [a - b for a, b in zip(*values["MRR@10"])]
    mean = sum(diffs) / len(diffs)
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1))
    assert mrr["test"] == "randomization" and math.isclose(mrr["sd"], sd)
    assert (mrr["trials"], mrr["flips"], mrr["seed"]) == (1000, 1000, 0)
    # the same seed, the same figure; within a tenth of the normal approximation's (checked by
    # simulation in tests/evaluation/test_questions_needed_simulation.py)
    assert needed_for_effect(values, 0.03, 0.05, 0.8)["MRR@10"]["needed"] == mrr["needed"]
    assert abs(mrr["needed"] / (((1.959964 + 0.841621) * sd / 0.03) ** 2) - 1) < 0.1
    # a smaller effect needs more questions; a pilot without a difference plans none
    assert needed_for_effect(values, 0.02, 0.05, 0.8)["MRR@10"]["needed"] > mrr["needed"]
    assert needed["nDCG@10"]["needed"] is None


def test_generating_them_is_priced_online_and_by_batch_from_the_price_table():
    row = model_prices(load_prices(str(ROOT / "config" / "prices.yaml")), "opus")
    cost = generation_cost(1000, 1460.0, 150, row)
    assert cost["input_tokens_per_call"] == 1000
    assert math.isclose(cost["online_usd"], 1000 * (1000 * 5.0 + 150 * 25.0) / 1e6)
    assert math.isclose(cost["batch_usd"], 1000 * (1000 * 2.5 + 150 * 12.5) / 1e6)
