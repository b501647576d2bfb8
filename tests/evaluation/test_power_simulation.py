"""The power the preregistration predicts is the power the paired tests have: simulated data
sets with a known discordance and difference, tested as pairs tests them, reject about as often
as ctxret.evaluation.stats predicts: the exact sign test as paired_power, the verdict's cluster-bootstrap
interval as interval_power. The full table
(more sizes, more data sets) is benchmarks/bench_power.py."""
import pytest

from ctxret.evaluation.power_simulation import simulated_power

# (questions, planning discordance, difference): a demo-like and a KorQuAD-like size, powers 0.5-0.7
CASES = [(80, 0.25, 0.125), (400, 0.1, 0.04)]


@pytest.mark.parametrize("n, discordance, diff", CASES)
def test_predicted_power_is_within_5_points_of_simulated_power(n, discordance, diff):
    r = simulated_power(n, discordance, diff, alpha=0.05, reps=1000, seed=7, resamples=500)
    # sizes where the check can fail either way
    assert 0.3 < r["predicted_sign"] < 0.9 and 0.3 < r["predicted_interval"] < 0.9
    assert abs(r["sign"] - r["predicted_sign"]) <= 0.05, r
    assert abs(r["bootstrap"] - r["predicted_interval"]) <= 0.05, r


def test_no_difference_is_rejected_about_alpha_of_the_time():
    r = simulated_power(200, 0.2, 0.0, alpha=0.05, reps=2000, seed=3)
    assert r["predicted_sign"] <= 0.05 and r["sign"] <= 0.06
