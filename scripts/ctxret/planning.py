"""Planning before paying: what a run commits to (its decision rule, its questions by content),
what each primary comparison can detect with the questions at hand, what the paid contexts
will take, and whether a finished run kept to its preregistration. Pure functions over dicts.

The power figures are ctxret.stats's (exact sign test), with the discordance of a free pair
of conditions as the planning value: the primary's sides with A1 replaced by the fallback
variant (`{dense}:T1` vs `{dense}:X1` for `{dense}:T1` vs `{dense}:A1`).
"""
from __future__ import annotations

import heapq

from .fileio import canonical_json, sha256_text
from .paired import MAX_QUESTIONS
from .questionset import CANONICAL
from .stats import min_detectable_diff, questions_needed


def question_hashes(questions: list[dict]) -> dict[str, str]:
    """{id: sha256 of what the question says} (its canonical fields, not where it is written)."""
    return {q["id"]: sha256_text(canonical_json({k: q[k] for k in CANONICAL if k in q})) for q in questions}


def planning_side(condition: str, paid: str, fallback: str) -> str:
    """The free condition nearest to `condition`: the paid variant replaced by the fallback."""
    retriever, _, variant = condition.rpartition(":")
    return f"{retriever}:{fallback}" if variant == paid else condition


def plan_power(n: int, discordant: int, diffs: list[float], alpha: float, power: float) -> dict:
    """With n questions of which `discordant` split the planning pair: the planning discordance,
    the minimum detectable difference at `power` (None: none reaches it) and the questions each
    difference in `diffs` needs (None: larger than the discordance allows, or over MAX_QUESTIONS)."""
    psi = discordant / n if n else 0.0
    return {"N": n, "discordant": discordant, "discordance": psi, "alpha": alpha, "power": power,
            "min_detectable_diff": min_detectable_diff(n, psi, alpha, power) if discordant else None,
            "needed": {f"{d:g}": questions_needed(psi, d, alpha, power, MAX_QUESTIONS) for d in diffs},
            "max_n": MAX_QUESTIONS}


def duration_hours(calls_per_document: list[int], seconds_per_call: float, workers: int) -> float:
    """Hours until the last document is done: documents taken in corpus order by `workers`
    slots, each its calls one after another (a free slot takes the next document)."""
    slots = [0.0] * max(1, workers)
    for calls in calls_per_document:
        heapq.heappush(slots, heapq.heappop(slots) + calls * seconds_per_call)
    return max(slots) / 3600


def committed_rule(plan: dict) -> dict:
    """What a preregistration commits to of a plan (plan.json): the primaries as declared, the
    dense slot, k, alpha and power, the bootstrap, the clusters and the secondary family."""
    return {"primary": [{"a": p["declared"]["a"], "b": p["declared"]["b"], "group": p["group"], "k": p["k"]}
                        for p in plan["primary"]],
            "dense": plan["dense"], "alpha": plan["alpha"], "power": plan["power"], "seed": plan["seed"],
            "resamples": plan["resamples"], "cluster_key": plan["cluster_key"],
            "secondary": plan["secondary"]}


def kept_to_plan(prereg: dict, questions: dict[str, str], plan: dict) -> dict:
    """A finished run against its preregistration: questions edited, added or removed (by
    content hash) and each part of the committed rule that changed ({key: [then, now]})."""
    then_q = prereg["questions"]
    then, now = prereg["committed"], committed_rule(plan)
    out = {"preregistered": prereg["written"],
           "edited": sorted(q for q in then_q.keys() & questions.keys() if then_q[q] != questions[q]),
           "added": sorted(questions.keys() - then_q.keys()),
           "removed": sorted(then_q.keys() - questions.keys()),
           "rule_changed": {k: [then.get(k), now[k]] for k in now if then.get(k) != now[k]}}
    out["kept"] = not (out["edited"] or out["added"] or out["removed"] or out["rule_changed"])
    return out
