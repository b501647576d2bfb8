"""How far a generated or judged question set agrees with a human one: which reporting groups are
generated (every set of them generated), which judged (every set of them judged, without gold of
its own: scored by the LLM's graded qrels) and which human (none of either), and Kendall's tau-b
between the orderings of all conditions by the primary measure (failure@k) on a human group and on
a generated or judged group. The field's anchor for generated queries: TREC DL 2023 found tau =
0.85 between synthetic and human queries (none is given for judged relevance).

With fewer than three conditions tau is +1 or -1 by construction (one pair, ordered one way or
the other) and is not given; when every condition fails equally often on one of the groups it is
undefined (that group orders nothing)."""
from __future__ import annotations

from scipy.stats import kendalltau

ANCHOR_TAU = 0.85   # TREC DL 2023, synthetic vs human queries


def group_origins(groups: dict[str, list[str]], generated_sets: set[str],
                  judged_sets: frozenset[str] = frozenset()) -> dict[str, str]:
    """Per reporting group: generated (all its sets), judged (all its sets judged without gold),
    human (none of them either) or mixed."""
    def origin(sets: set[str]) -> str:
        return ("generated" if sets <= generated_sets else "judged" if sets <= judged_sets
                else "mixed" if sets & (generated_sets | judged_sets) else "human")
    return {g: origin(set(sets)) for g, sets in groups.items()}


def ordering_agreement(human: dict[str, float], other: dict[str, float], anchor: float | None = ANCHOR_TAU) -> dict:
    """Kendall's tau-b (and its p) between two orderings of the same conditions ({condition:
    measure}), or None with why not: `pair` (fewer than three conditions), `ties` (one side has
    every condition equal); with the anchor to read it by, where there is one."""
    conditions = sorted(human)
    x, y = [human[c] for c in conditions], [other[c] for c in conditions]
    out = {"conditions": len(conditions), "tau": None, "p": None, "anchor": anchor}
    if len(conditions) < 3:
        return {**out, "why": "pair"}
    if len(set(x)) < 2 or len(set(y)) < 2:
        return {**out, "why": "ties"}
    result = kendalltau(x, y, variant="b")
    return {**out, "tau": float(result.statistic), "p": float(result.pvalue), "why": None}
