"""The questions-needed figures of the preregistration (evaluation.preregistration.needed_for_effect)
checked by a separate simulation: experiments of that many questions, drawn as the planning
assumes, reach the planned power, and three questions in ten fewer do not reach it by
much more than the simulation's noise. The tests here are scipy's sign test and a randomization
test written as plain loops, not ctxret's."""
import numpy as np
from scipy.stats import binomtest

from ctxret.evaluation.preregistration import needed_for_effect

ALPHA, POWER, EFFECT, EXPERIMENTS = 0.05, 0.8, 0.05, 2000


def sign_test_power(n: int, discordance: float, effect: float, rng) -> float:
    """Share of simulated paired experiments of n questions the exact two-sided sign test rejects:
    each question discordant with probability `discordance`, one side ahead by `effect`."""
    only_a, only_b = (discordance - effect) / 2, (discordance + effect) / 2
    counts = rng.multinomial(n, [only_a, only_b, 1 - only_a - only_b], size=EXPERIMENTS)
    return float(np.mean([binomtest(int(a), int(a + b), 0.5).pvalue < ALPHA if a + b else False
                          for a, b, _ in counts]))


def randomization_power(n: int, diffs: np.ndarray, effect: float, rng, experiments: int, flips: int) -> float:
    """Share of simulated experiments of n paired differences, resampled from the pilot's and
    shifted to a mean of `effect`, that a two-sided paired randomization test rejects, written as
    plain loops: per experiment, `flips` fresh sign vectors, p = (1 + as extreme) / (flips + 1)."""
    shifted = diffs - diffs.mean() + effect
    rejected = 0
    for _ in range(experiments):
        sample = rng.choice(shifted, size=n)
        observed = abs(sample.sum())
        extreme = 0
        for _ in range(flips):
            signs = rng.integers(0, 2, size=n) * 2 - 1
            extreme += abs(float(np.dot(signs, sample))) >= observed - 1e-9
        rejected += (1 + extreme) / (flips + 1) <= ALPHA
    return rejected / experiments


def test_the_sign_test_figure_reaches_its_power_in_simulation():
    rng = np.random.default_rng(7)
    hits_a = rng.random(300) < 0.7
    hits_b = np.where(rng.random(300) < 0.85, hits_a, ~hits_a)        # about 15 % of questions disagree
    planned = needed_for_effect({"failure@5": (hits_a.tolist(), hits_b.tolist())}, EFFECT, ALPHA, POWER)["failure@5"]
    n, psi = planned["needed"], planned["discordance"]
    assert sign_test_power(n, psi, EFFECT, rng) >= POWER - 0.02        # 2,000 experiments: sd of a share ~0.009
    assert sign_test_power(int(n * 0.7), psi, EFFECT, rng) < POWER


def test_the_randomization_test_figure_reaches_its_power_in_simulation():
    """400 experiments of 500 sign flips each: the share's standard error is 0.020 at power 0.8, the
    figure's own (1,000 experiments a size) 0.013, together 0.024; 0.07 is three of them. At 0.7 n
    the power is about 0.12 lower (the normal approximation's slope), 0.05 leaves two errors."""
    rng = np.random.default_rng(11)
    rr_a = rng.choice([1, 0.5, 1 / 3, 0.25, 0], size=300)
    rr_b = np.clip(rr_a + rng.choice([-0.5, 0, 0, 0, 0.5], size=300), 0, 1)
    planned = needed_for_effect({"MRR@10": (rr_a.tolist(), rr_b.tolist())}, EFFECT, ALPHA, POWER)["MRR@10"]
    n = planned["needed"]
    assert planned["test"] == "randomization"
    assert abs(randomization_power(n, rr_a - rr_b, EFFECT, rng, 400, 500) - POWER) <= 0.07
    assert randomization_power(int(n * 0.7), rr_a - rr_b, EFFECT, rng, 400, 500) < POWER - 0.05
