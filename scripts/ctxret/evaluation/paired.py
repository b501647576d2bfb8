"""Two conditions compared question by question: both hit / both missed / only A / only B, the
exact sign test, a cluster-bootstrap interval of the failure-rate difference, the verdict of the
interval and the power of the test; a continuous measure's (MRR, nDCG) mean difference with its
cluster-bootstrap interval and the paired randomization test (method: ctxret.evaluation.stats); and the
declared primary comparisons resolved to this run's conditions."""
from __future__ import annotations

import numpy as np

from ctxret.errors import InputError
from ctxret.evaluation.metrics import Measure
from ctxret.evaluation.stats import (binomial_tost, cluster_bootstrap_bca, cluster_bootstrap_diff, cluster_t_interval,
                                     clustered, design_effect, interval_power, min_detectable_diff, paired_counts, questions_needed,
                                     randomization_test, randomization_tost, sign_test)

MAX_QUESTIONS = 100_000  # questions_needed searches up to here
LLM_VARIANT = "A1"       # the one a fallback variant stands in for


def verdict_interval(c: dict, interval: str = "percentile") -> list[float]:
    """The interval a comparison's verdict reads (pairs.interval): the percentile cluster bootstrap
    (`ci`, the default) or the cluster-robust t interval (`ci_cluster_t`, the one that keeps its
    coverage with few clusters; with fewer than two clusters it is none and nothing is shown)."""
    if interval == "cluster_t":
        return c["ci_cluster_t"] or [float("-inf"), float("inf")]
    return c["ci"]


def verdict(lo: float, hi: float, equivalence: dict | None = None) -> str:
    """Failure-rate difference B - A: below 0 throughout means B fails less; an interval containing 0
    is "equivalent" when the preregistered equivalence test (`equivalence`, with a margin) showed it."""
    if hi < 0:
        return "holds"
    if lo > 0:
        return "reversed"
    return "equivalent" if equivalence and equivalence["equivalent"] else "undecided"


def failure_equivalence(c: dict, fail_a, fail_b, clusters, margin: float, alpha: float,
                        interval: str = "percentile") -> dict:
    """Equivalence of the failure rates within +-margin, an intersection-union test (Berger 1982;
    level alpha when each part is): the exact unconditional TOST (stats.binomial_tost: Berger-Boos,
    the discordance a nuisance parameter) and the verdict's interval (`interval`: the cluster
    bootstrap's, or the cluster-robust t) at 1 - 2 alpha inside (-margin, margin) (the TOST by its
    interval, Schuirmann 1987: it pays for the clusters the exact test ignores). Equivalent when both
    say so."""
    tost = binomial_tost(c["only_a"], c["only_b"], c["N"], margin)
    if interval == "cluster_t":
        lo, hi = cluster_t_interval(fail_a, fail_b, clusters, 1 - 2 * alpha) or (float("-inf"), float("inf"))
    else:
        lo, hi = cluster_bootstrap_diff(fail_a, fail_b, clusters, c["seed"], c["resamples"], 1 - 2 * alpha)
    inside = -margin < lo and hi < margin
    return {"margin": margin, "alpha": alpha, **tost, "ci_tost": [lo, hi], "ci_tost_level": 1 - 2 * alpha,
            "interval_inside": inside, "equivalent": bool(tost["p"] <= alpha and inside)}


def compare(out_a: dict, out_b: dict, qids: list[str], k: int, cluster_of_q: dict[str, str],
            seed: int, resamples: int, margin: float | None = None, alpha: float = 0.05,
            interval: str = "percentile") -> dict:
    """The paired comparison of failure@k; with a margin, its equivalence test (`failure_equivalence`,
    by the verdict's `interval`)."""
    hit = Measure("Success", k).name
    hit_a, hit_b = (np.array([out[q][hit] for q in qids]) for out in (out_a, out_b))
    counts = paired_counts(hit_a, hit_b)
    n = len(qids)
    fail_a, fail_b = int(np.sum(~hit_a)), int(np.sum(~hit_b))
    clusters = np.array([cluster_of_q[q] for q in qids])
    lo, hi = cluster_bootstrap_diff(~hit_a, ~hit_b, clusters, seed, resamples)
    out = {"N": n, "k": k, "fail_a": fail_a, "fail_b": fail_b, "diff": (fail_b - fail_a) / n,
           **counts, "sign_p": sign_test(counts["only_a"], counts["only_b"]),
           "ci": [lo, hi], "ci_bca": list(cluster_bootstrap_bca(~hit_a, ~hit_b, clusters, seed, resamples)),
           "ci_cluster_t": cluster_t_interval(~hit_a, ~hit_b, clusters),
           "clusters": int(len(set(clusters))), "seed": seed, "resamples": resamples,
           "design": design_effect((~hit_b).astype(float) - (~hit_a), clusters),
           "flipped": [{"qid": q, "rank_a": out_a[q]["rank"], "rank_b": out_b[q]["rank"],
                        "hit_a": bool(a), "hit_b": bool(b)}
                       for q, a, b in zip(qids, hit_a, hit_b) if a != b]}
    if margin is not None:
        out["equivalence"] = failure_equivalence(out, ~hit_a, ~hit_b, clusters, float(margin), alpha, interval)
    return out


def compare_continuous(out_a: dict, out_b: dict, qids: list[str], measure: str, cluster_of_q: dict[str, str],
                       seed: int, resamples: int, margin: float | None = None, alpha: float = 0.05) -> dict:
    """A per-question measure (e.g. RR@10) under A and B: the means, mean(B) - mean(A) (above 0: B
    ranks the gold higher) with its cluster-bootstrap interval, and the randomization test: p, how it
    was found (exact, or bounded on a grid), its bounds (equal when exact) and the grid's step; with a
    margin, the randomization TOST (`equivalence`: equivalent when its p <= alpha)."""
    a, b = (np.array([out[q][measure] for q in qids], float) for out in (out_a, out_b))
    clusters = np.array([cluster_of_q[q] for q in qids])
    lo, hi = cluster_bootstrap_diff(a, b, clusters, seed, resamples)
    test = randomization_test(a, b)
    extra = {}
    if margin is not None:
        tost = randomization_tost(a, b, float(margin))
        extra["equivalence"] = {"margin": float(margin), "alpha": alpha, **tost, "equivalent": bool(tost["p"] <= alpha)}
    return {"measure": measure, "N": len(qids), "mean_a": float(a.mean()), "mean_b": float(b.mean()),
            "diff": float(b.mean() - a.mean()), "ci": [lo, hi], "p": test["p"], "p_method": test["method"],
            "p_bounds": test["bounds"], "p_grid": test["grid"], "nonzero": test["nonzero"],
            "ci_bca": list(cluster_bootstrap_bca(a, b, clusters, seed, resamples)),
            "ci_cluster_t": cluster_t_interval(a, b, clusters), **extra}


def power_summary(c: dict, alpha: float, power: float) -> dict:
    """Power of the sign test at the observed discordance (method: ctxret.evaluation.stats), and beside
    it (`clustered`) the verdict's interval with the questions weighed by the design effect of the
    comparison's own clusters (c["design"]): its minimum detectable difference and questions needed."""
    d = c["only_a"] + c["only_b"]
    psi = d / c["N"]
    needed = questions_needed(psi, c["diff"], alpha, power, MAX_QUESTIONS)
    deff = c["design"]["deff"]
    f = clustered(interval_power, deff)
    needed_c = questions_needed(psi, c["diff"], alpha, power, MAX_QUESTIONS, f)
    return {"alpha": alpha, "power": power, "discordant": d, "discordance": psi,
            "min_detectable_diff": min_detectable_diff(c["N"], psi, alpha, power) if d else None,
            "questions_needed": needed,
            "needed_over_max": needed is None and c["diff"] != 0 and d > 0, "max_n": MAX_QUESTIONS,
            "clustered": {"test": "interval", **c["design"],
                          "min_detectable_diff": min_detectable_diff(c["N"], psi, alpha, power, power_of=f) if d else None,
                          "questions_needed": needed_c}}


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
