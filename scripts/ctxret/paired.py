"""Two conditions compared question by question: both hit / both missed / only A / only B, the
exact sign test, a cluster-bootstrap interval of the failure-rate difference, the verdict of the
interval and the power of the test; a continuous measure's (MRR, nDCG) mean difference with its
cluster-bootstrap interval and the paired randomization test (method: ctxret.stats); and the
declared primary comparisons resolved to this run's conditions."""
from __future__ import annotations

import numpy as np

from .errors import InputError
from .metrics import Measure
from .stats import (cluster_bootstrap_diff, min_detectable_diff, paired_counts, questions_needed,
                    randomization_test, sign_test)

MAX_QUESTIONS = 100_000  # questions_needed searches up to here
LLM_VARIANT = "A1"       # the one a fallback variant stands in for


def verdict(lo: float, hi: float) -> str:
    """Failure-rate difference B - A: below 0 throughout means B fails less."""
    if hi < 0:
        return "holds"
    if lo > 0:
        return "reversed"
    return "undecided"


def compare(out_a: dict, out_b: dict, qids: list[str], k: int, cluster_of_q: dict[str, str],
            seed: int, resamples: int) -> dict:
    hit = Measure("Success", k).name
    hit_a, hit_b = (np.array([out[q][hit] for q in qids]) for out in (out_a, out_b))
    counts = paired_counts(hit_a, hit_b)
    n = len(qids)
    fail_a, fail_b = int(np.sum(~hit_a)), int(np.sum(~hit_b))
    clusters = np.array([cluster_of_q[q] for q in qids])
    lo, hi = cluster_bootstrap_diff(~hit_a, ~hit_b, clusters, seed, resamples)
    return {"N": n, "k": k, "fail_a": fail_a, "fail_b": fail_b, "diff": (fail_b - fail_a) / n,
            **counts, "sign_p": sign_test(counts["only_a"], counts["only_b"]),
            "ci": [lo, hi], "clusters": int(len(set(clusters))), "seed": seed, "resamples": resamples,
            "flipped": [{"qid": q, "rank_a": out_a[q]["rank"], "rank_b": out_b[q]["rank"],
                         "hit_a": bool(a), "hit_b": bool(b)}
                        for q, a, b in zip(qids, hit_a, hit_b) if a != b]}


def compare_continuous(out_a: dict, out_b: dict, qids: list[str], measure: str, cluster_of_q: dict[str, str],
                       seed: int, resamples: int) -> dict:
    """A per-question measure (e.g. RR@10) under A and B: the means, mean(B) - mean(A) (above 0: B
    ranks the gold higher) with its cluster-bootstrap interval, and the randomization test: p, how it
    was found (exact, or bounded on a grid), its bounds (equal when exact) and the grid's step."""
    a, b = (np.array([out[q][measure] for q in qids], float) for out in (out_a, out_b))
    lo, hi = cluster_bootstrap_diff(a, b, np.array([cluster_of_q[q] for q in qids]), seed, resamples)
    test = randomization_test(a, b)
    return {"measure": measure, "N": len(qids), "mean_a": float(a.mean()), "mean_b": float(b.mean()),
            "diff": float(b.mean() - a.mean()), "ci": [lo, hi], "p": test["p"], "p_method": test["method"],
            "p_bounds": test["bounds"], "p_grid": test["grid"], "nonzero": test["nonzero"]}


def power_summary(c: dict, alpha: float, power: float) -> dict:
    """Power of the sign test at the observed discordance (method: ctxret.stats)."""
    d = c["only_a"] + c["only_b"]
    psi = d / c["N"]
    needed = questions_needed(psi, c["diff"], alpha, power, MAX_QUESTIONS)
    return {"alpha": alpha, "power": power, "discordant": d, "discordance": psi,
            "min_detectable_diff": min_detectable_diff(c["N"], psi, alpha, power) if d else None,
            "questions_needed": needed,
            "needed_over_max": needed is None and c["diff"] != 0 and d > 0, "max_n": MAX_QUESTIONS}


def resolve_primary(specs: list[dict], conditions: list[str], dense: str, fallback: str, groups: list[str],
                    problem=lambda i, message: InputError(f"config pairs.primary[{i}]: {message}"),
                    skip_missing: bool = False) -> tuple[list[dict], bool]:
    """The primaries with `{dense}` filled in and, when A1 is absent, A1 replaced by the fallback;
    `problem(i, message)` is the error for primary i. With `skip_missing` (the defaults), a
    primary whose conditions this run does not have is left out instead."""
    out, used = [], False
    for i, spec in enumerate(specs):
        sides, replaced = [], False
        for side in (spec["a"], spec["b"]):
            cond = side.replace("{dense}", dense)
            retriever, _, variant = cond.rpartition(":")
            if cond not in conditions and variant == LLM_VARIANT and f"{retriever}:{fallback}" in conditions:
                cond, used, replaced = f"{retriever}:{fallback}", True, True
            sides.append(cond)
        missing = [c for c in sides if c not in conditions]
        if missing and skip_missing:
            continue
        if missing:
            raise problem(i, f"{missing[0]!r} is not a condition of this run ({', '.join(conditions)})")
        if sides[0] == sides[1]:
            raise problem(i, f"compares {sides[0]} with itself" + (f" (A1 replaced by the fallback {fallback})"
                                                                   if replaced else "")
                          + "; name two different conditions")
        if spec["group"] not in groups:
            raise problem(i, f"group {spec['group']!r} is not among {groups}")
        out.append({"a": sides[0], "b": sides[1], "group": spec["group"], "k": int(spec["k"]),
                    "declared": {"a": spec["a"], "b": spec["b"]}})
    return out, used
