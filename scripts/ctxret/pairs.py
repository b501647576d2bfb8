"""pairs: per-question paired comparison of two conditions, with a verdict by a fixed rule."""
from __future__ import annotations

import numpy as np

from .fileio import read_json, read_jsonl, write_json, write_text
from .outcomes import group_members, question_outcomes
from .questions import cluster_of
from .runs import read_run
from .stats import cluster_bootstrap_diff, paired_counts, sign_test

VERDICTS = {"holds": "B better: interval excludes 0 on B's side",
            "undecided": "cannot be distinguished with this many questions",
            "reversed": "came out the other way"}


def verdict(lo: float, hi: float) -> str:
    """Failure-rate difference B - A: below 0 throughout means B fails less."""
    if hi < 0:
        return "holds"
    if lo > 0:
        return "reversed"
    return "undecided"


def compare(out_a: dict, out_b: dict, qids: list[str], k: int, cluster_pattern: str,
            seed: int, resamples: int) -> dict:
    hit_a = np.array([out_a[q][f"hit@{k}"] for q in qids])
    hit_b = np.array([out_b[q][f"hit@{k}"] for q in qids])
    counts = paired_counts(hit_a, hit_b)
    n = len(qids)
    fail_a, fail_b = int(np.sum(~hit_a)), int(np.sum(~hit_b))
    clusters = np.array([cluster_of(q, cluster_pattern) for q in qids])
    lo, hi = cluster_bootstrap_diff(~hit_a, ~hit_b, clusters, seed, resamples)
    return {"N": n, "k": k, "fail_a": fail_a, "fail_b": fail_b, "diff": (fail_b - fail_a) / n,
            **counts, "sign_p": sign_test(counts["only_a"], counts["only_b"]),
            "ci": [lo, hi], "clusters": int(len(set(clusters))), "verdict": verdict(lo, hi),
            "flipped": [{"qid": q, "rank_a": out_a[q]["rank"], "rank_b": out_b[q]["rank"]}
                        for q, a, b in zip(qids, hit_a, hit_b) if a != b]}


def describe(c: dict) -> str:
    return "\n".join([
        f"## {c['a']} vs {c['b']}, {c['group']} {c['N']} questions, failure rate@{c['k']}",
        f"- failures: {c['a']} {c['fail_a']}/{c['N']}, {c['b']} {c['fail_b']}/{c['N']}, "
        f"difference (B - A) {c['diff']:+.3f}",
        f"- both hit {c['both_hit']}, both missed {c['both_missed']}, only {c['a']} {c['only_a']}, "
        f"only {c['b']} {c['only_b']}",
        f"- exact two-sided sign test on {c['only_a'] + c['only_b']} discordant: p = {c['sign_p']:.3f}",
        f"- 95 % bootstrap interval of the difference ({c['clusters']} clusters, {c['resamples']:,} "
        f"resamples, seed {c['seed']}): [{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}]",
        f"- verdict: {VERDICTS[c['verdict']]}"])


def run(input, output, params, **_) -> None:
    gold = read_json(input.gold)["questions"]
    slug_of = {c["chunk_id"]: c["slug"] for c in read_jsonl(input.chunks)}
    runs = dict(zip((f"{r}:{v}" for r, v in params.conditions), input.runs))
    groups = group_members(gold, dict(params.groups))
    cache: dict[str, dict] = {}

    def outcomes(cond: str) -> dict:
        if cond not in cache:
            cache[cond] = question_outcomes(read_run(runs[cond]), gold, slug_of, list(params.ks), 10, 5)
        return cache[cond]

    comparisons = []
    for a, b in params.comparisons:
        for group, qids in groups.items():
            for k in params.ks:
                if qids:
                    c = compare(outcomes(a), outcomes(b), qids, int(k), params.cluster_key,
                                int(params.seed), int(params.resamples))
                    comparisons.append({"a": a, "b": b, "group": group, "seed": int(params.seed),
                                        "resamples": int(params.resamples), **c})
    text = "\n\n".join(describe(c) for c in comparisons)
    write_json(output.json, {"comparisons": comparisons})
    write_text(output.md, "# Paired comparisons\n\n" + text + "\n")
    print(text)
