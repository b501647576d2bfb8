"""Planning before paying: what a run commits to (its decision rule, its questions by content),
what each primary comparison can detect with the questions at hand, what the paid contexts
will take, and whether a finished run kept to its preregistration. Pure functions over dicts.

The power figures are ctxret.evaluation.stats's, for the verdict's bootstrap interval (normal
approximation) and for the exact sign test, with the discordance of a free pair of conditions
as the planning value: the primary's sides with each paid variant replaced by the fallback
variant (`{dense}:T1` vs `{dense}:X1` for `{dense}:T1` vs `{dense}:A1` or `{dense}:A2`); two paid
sides become one condition, and no free pair stands in for them.
"""
from __future__ import annotations

import heapq
import math
from datetime import datetime

from ctxret.evaluation.paired import MAX_QUESTIONS
from ctxret.evaluation.stats import (NEEDED_FLIPS, NEEDED_TRIALS, binary_equivalence_needed, clustered,
                                     interval_power, min_detectable_diff, paired_power, questions_needed,
                                     randomization_needed)
from ctxret.fileio import sha256_text
from ctxret.questions.sets import canonical_lines


def question_hashes(questions: list[dict]) -> dict[str, str]:
    """{id: sha256 of what the question says} (its canonical line, not where it is written)."""
    return {q["id"]: sha256_text(canonical_lines([q])) for q in questions}


def planning_side(condition: str, paid: list[str], fallback: str) -> str:
    """The free condition nearest to `condition`: a paid variant replaced by the fallback."""
    retriever, _, variant = condition.rpartition(":")
    return f"{retriever}:{fallback}" if variant in paid else condition


TESTS = {"interval": interval_power, "sign": paired_power}  # the verdict's interval, the sign test


def at_least_the_difference(power_of, discordance: float):
    """power_of with the planning discordance raised to the difference where it is smaller: a
    difference d needs at least d of the questions to disagree (all of them going one way)."""
    return lambda n, _, diff, alpha: power_of(n, max(discordance, abs(diff)), diff, alpha)


def plan_power(n: int, discordant: int, diffs: list[float], alpha: float, power: float,
               design: dict | None = None, margin: float | None = None) -> dict:
    """With n questions of which `discordant` split the planning pair: the planning discordance
    and, per test (the verdict's interval first), the minimum detectable difference at `power`
    and the questions each difference in `diffs` needs (None: over MAX_QUESTIONS). A difference
    above the planning discordance is planned at a discordance equal to it. With the pilot's
    `design` effect (stats.design_effect), the verdict's interval again with the clusters
    (`interval_clustered`: n questions weigh n / deff); with an equivalence `margin`, the questions
    the TOST needs to show equivalence when the true difference is 0 (normal approximation,
    stats.binary_equivalence_needed), independent and clustered."""
    psi = discordant / n if n else 0.0
    out = {"N": n, "discordant": discordant, "discordance": psi, "alpha": alpha, "power": power,
           "max_n": MAX_QUESTIONS}
    tests = dict(TESTS)
    if design is not None:
        out["design"] = design
        tests["interval_clustered"] = clustered(interval_power, design["deff"])
    for name, f in tests.items():
        planned = at_least_the_difference(f, psi)
        out[name] = {"min_detectable_diff": min_detectable_diff(n, 1.0, alpha, power, power_of=planned),
                     "needed": {f"{d:g}": questions_needed(max(psi, d), d, alpha, power, MAX_QUESTIONS, f)
                                for d in diffs}}
    if margin is not None:
        deff = design["deff"] if design else 1.0
        needed = binary_equivalence_needed(psi, margin, alpha, power, MAX_QUESTIONS) if psi > 0 else None
        out["equivalence"] = {"margin": margin, "needed": needed,
                              "needed_clustered": math.ceil(needed * deff) if needed is not None else None}
    return out


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
            "secondary": plan["secondary"], "settings": plan["settings"]}


def changed_parts(then: dict, now: dict, chunks_then: str | None, chunks_now: str) -> dict[str, list]:
    """{key: [then, now]} of each committed part that changed: the rule's parts, each setting by its
    dotted key (one the preregistration did not record counts as changed), and the chunks the
    free stages searched (chunks.jsonl's sha256: the corpus's text and its chunking)."""
    settings_then, settings_now = then.get("settings", {}), now["settings"]
    changed = {k: [then.get(k), now[k]] for k in now if k != "settings" and then.get(k) != now[k]}
    changed.update({k: [settings_then.get(k), settings_now.get(k)] for k in sorted(settings_then.keys() | settings_now)
                    if settings_then.get(k) != settings_now.get(k)})
    if chunks_then != chunks_now:
        changed["chunks.jsonl (sha256)"] = [chunks_then, chunks_now]
    return changed


def kept_to_plan(prereg: dict, questions: dict[str, str], plan: dict, chunks_sha256: str,
                 paid_written: str | None = None) -> dict:
    """A finished run against its preregistration: questions edited, added or removed (by
    content hash), each committed part that changed ({key: [then, now]}: `changed_parts`), and
    `after_paid`: when the earliest paid run (`paid_written`, an A1 run's time) was written before
    the preregistration (one deleted and written again after the answers: it preregisters nothing)."""
    then_q = prereg["questions"]
    after = paid_written is not None and datetime.fromisoformat(paid_written) < datetime.fromisoformat(prereg["written"])
    out = {"preregistered": prereg["written"], "after_paid": paid_written if after else None,
           "edited": sorted(q for q in then_q.keys() & questions.keys() if then_q[q] != questions[q]),
           "added": sorted(questions.keys() - then_q.keys()),
           "removed": sorted(then_q.keys() - questions.keys()),
           "rule_changed": changed_parts(prereg["committed"], committed_rule(plan), prereg.get("chunks_sha256"),
                                         chunks_sha256)}
    out["kept"] = not (out["edited"] or out["added"] or out["removed"] or out["rule_changed"] or out["after_paid"])
    return out


# The candidate primary measures whose questions needed for the smallest effect of interest are stated
CANDIDATES = ("failure@5", "MRR@10", "nDCG@10")


def needed_for_effect(pilot: dict[str, tuple[list, list]], effect: float, alpha: float, power: float,
                      seed: int = 0) -> dict:
    """Per candidate measure, from the pilot's per-question values of the planning pair
    ({measure: (a's, b's)}: failure@5 as hits, MRR@10 and nDCG@10 as scores), the questions
    needed to detect `effect` at `alpha` with `power` and the test planned with: failure@5 by the
    exact sign test at the pilot's discordance (at least the effect); MRR@10 and nDCG@10 by the
    paired randomization test, simulated on the pilot's paired differences shifted to a mean of
    `effect` (stats.randomization_needed, seeded by `seed`; None: the pilot shows no spread, or
    over MAX_QUESTIONS)."""
    out = {}
    for measure, (a, b) in pilot.items():
        n = len(a)
        if measure == "failure@5":
            psi = sum(x != y for x, y in zip(a, b)) / n if n else 0.0
            out[measure] = {"test": "sign", "discordance": psi,
                            "needed": questions_needed(max(psi, effect), effect, alpha, power, MAX_QUESTIONS)}
            continue
        diffs = [x - y for x, y in zip(a, b)]
        mean = sum(diffs) / n if n else 0.0
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
        out[measure] = {"test": "randomization", "sd": sd, "trials": NEEDED_TRIALS, "flips": NEEDED_FLIPS,
                        "seed": seed, "needed": randomization_needed(diffs, effect, alpha, power, MAX_QUESTIONS, seed)}
    return out
