"""The questions-needed figures of the preregistration (evaluation.preregistration.needed_for_effect)
checked by a separate simulation: experiments of that many questions, drawn as the planning
assumes, reach the planned power, and one question in ten fewer per test does not reach it by
much more than the simulation's noise. The tests here are scipy's, not ctxret's."""
import numpy as np
from scipy.stats import binomtest, ttest_1samp

from ctxret.evaluation.preregistration import needed_for_effect

ALPHA, POWER, EFFECT, EXPERIMENTS = 0.05, 0.8, 0.05, 2000


def sign_test_power(n: int, discordance: float, effect: float, rng) -> float:
    """Share of simulated paired experiments of n questions the exact two-sided sign test rejects:
    each question discordant with probability `discordance`, one side ahead by `effect`."""
    only_a, only_b = (discordance - effect) / 2, (discordance + effect) / 2
    counts = rng.multinomial(n, [only_a, only_b, 1 - only_a - only_b], size=EXPERIMENTS)
    return float(np.mean([binomtest(int(a), int(a + b), 0.5).pvalue < ALPHA if a + b else False
                          for a, b, _ in counts]))


def t_test_power(n: int, diffs: np.ndarray, effect: float, rng) -> float:
    """Share of simulated experiments of n paired differences, resampled from the pilot's and
    shifted to a mean of `effect`, that a two-sided one-sample t-test rejects."""
    shifted = diffs - diffs.mean() + effect
    samples = rng.choice(shifted, size=(EXPERIMENTS, n))
    return float(np.mean(ttest_1samp(samples, 0.0, axis=1).pvalue < ALPHA))


def test_the_sign_test_figure_reaches_its_power_in_simulation():
    rng = np.random.default_rng(7)
    hits_a = rng.random(300) < 0.7
    hits_b = np.where(rng.random(300) < 0.85, hits_a, ~hits_a)        # about 15 % of questions disagree
    planned = needed_for_effect({"failure@5": (hits_a.tolist(), hits_b.tolist())}, EFFECT, ALPHA, POWER)["failure@5"]
    n, psi = planned["needed"], planned["discordance"]
    assert sign_test_power(n, psi, EFFECT, rng) >= POWER - 0.02        # 2,000 experiments: sd of a share ~0.009
    assert sign_test_power(int(n * 0.7), psi, EFFECT, rng) < POWER


def test_the_normal_approximation_figure_reaches_its_power_in_simulation():
    rng = np.random.default_rng(11)
    rr_a = rng.choice([1, 0.5, 1 / 3, 0.25, 0], size=300)
    rr_b = np.clip(rr_a + rng.choice([-0.5, 0, 0, 0, 0.5], size=300), 0, 1)
    planned = needed_for_effect({"MRR@10": (rr_a.tolist(), rr_b.tolist())}, EFFECT, ALPHA, POWER)["MRR@10"]
    n = planned["needed"]
    assert abs(t_test_power(n, rr_a - rr_b, EFFECT, rng) - POWER) <= 0.03
    assert t_test_power(int(n * 0.7), rr_a - rr_b, EFFECT, rng) < POWER - 0.05
