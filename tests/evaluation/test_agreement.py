"""Kendall's tau-b between the orderings of conditions on a human and a generated group, against
a count of concordant and discordant pairs written out here; and when it is not given."""
import itertools
import math
import random

import pytest

from ctxret.evaluation.agreement import group_origins, ordering_agreement


def tau_b_by_pairs(x: list[float], y: list[float]) -> float:
    """(concordant - discordant) / sqrt((n0 - ties in x) (n0 - ties in y)), by pairs."""
    concordant = discordant = tied_x = tied_y = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        tied_x += dx == 0
        tied_y += dy == 0
        concordant += dx * dy > 0
        discordant += dx * dy < 0
    n0 = len(x) * (len(x) - 1) / 2
    return (concordant - discordant) / math.sqrt((n0 - tied_x) * (n0 - tied_y))


@pytest.mark.parametrize("seed", range(20))
def test_tau_b_matches_the_pair_count_with_ties(seed):
    rng = random.Random(seed)
    conditions = [f"c{i}" for i in range(rng.randint(3, 9))]
    human = {c: rng.choice([0.0, 0.1, 0.2, 0.3]) for c in conditions}
    generated = {c: rng.choice([0.05, 0.1, 0.15]) for c in conditions}
    found = ordering_agreement(human, generated)
    if len(set(human.values())) < 2 or len(set(generated.values())) < 2:
        assert found["tau"] is None and found["why"] == "ties"
        return
    order = sorted(conditions)
    assert found["tau"] == pytest.approx(tau_b_by_pairs([human[c] for c in order], [generated[c] for c in order]))
    assert 0 <= found["p"] <= 1 and found["conditions"] == len(conditions) and found["anchor"] == 0.85


def test_one_pair_of_conditions_gives_no_tau():
    found = ordering_agreement({"e5:T1": 0.1, "e5:X1": 0.2}, {"e5:T1": 0.3, "e5:X1": 0.1})
    assert (found["tau"], found["p"], found["why"], found["conditions"]) == (None, None, "pair", 2)


def test_the_same_ordering_agrees_fully_and_a_reversed_one_not_at_all():
    human = {"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.4}
    assert ordering_agreement(human, {k: v / 2 for k, v in human.items()})["tau"] == pytest.approx(1.0)
    assert ordering_agreement(human, {k: 1 - v for k, v in human.items()})["tau"] == pytest.approx(-1.0)


def test_a_group_is_generated_only_when_all_its_sets_are():
    origins = group_origins({"HP": ["H", "P"], "Gen": ["Gen"], "Both": ["H", "Gen"]}, {"Gen"})
    assert origins == {"HP": "human", "Gen": "generated", "Both": "mixed"}


def test_a_group_of_judged_sets_without_gold_is_judged_and_never_merged_silently():
    origins = group_origins({"HP": ["H", "P"], "Gen": ["Gen"], "Q": ["Q"], "HQ": ["H", "Q"], "GQ": ["Gen", "Q"]},
                            {"Gen"}, frozenset({"Q"}))
    assert origins == {"HP": "human", "Gen": "generated", "Q": "judged", "HQ": "mixed", "GQ": "mixed"}
