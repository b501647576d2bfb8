"""pairs: per-question paired comparisons, a verdict for the primaries by a rule fixed in config.

The primary comparisons (`pairs.primary`) are declared before the run; every other comparison
(`pairs.variant_pairs` x retrievers x groups x ks) is secondary, one family with Holm-adjusted
sign-test p values and no verdict. Each distinct (A, B, group) of either kind is also compared on
the continuous measures (`continuous`: MRR and nDCG at score.mrr_k and score.ndcg_k) by the paired
randomization test, a Holm family of its own, no verdict. Without an LLM backend A1 is absent and the primaries use
`pairs.fallback_variant` (X1) in its place; the report says so. A generated or a judged group is
set beside a human one (`agreement`), never part of a verdict.
"""
import os
from datetime import datetime, timezone

from ctxret.errors import InputError
from ctxret.evaluation.agreement import ANCHOR_TAU, group_origins, ordering_agreement
from ctxret.evaluation.judgments import judged_gold
from ctxret.evaluation.metrics import Measure, condition_name, group_members, parse, question_outcomes
from ctxret.evaluation.paired import (LLM_VARIANT, compare, compare_continuous, power_summary, verdict,
                                      verdict_interval)
from ctxret.evaluation.preregistration import kept_to_plan, question_hashes
from ctxret.evaluation.stats import BOUND_GAP, GRID_MAX, benjamini_hochberg, holm
from ctxret.fileio import read_json, read_jsonl, sha256_file, write_json, write_text
from ctxret.languages import script_warning
from ctxret.presentation.pages import agreement_lines, answer_sentences, log_warnings, pairs_markdown, verdict_text
from ctxret.presentation.wording import wording
from ctxret.questions.sets import cluster_key_warning, cluster_of
from ctxret.retrieval.runs import read_run
from ctxret.runtime.stage_runner import run_rule


def question_files(records: dict[str, dict]) -> list[dict]:
    """Each question set as the questions stage read it: format, gold kinds, content sha256 and
    its source files (path, sha256, modification time)."""
    return [{"set": name, **r} for name, r in records.items()]


class Outcomes:
    """Per-question outcomes of each condition's run, read once when first asked for."""

    def __init__(self, runs: dict[str, str], gold: dict, chunks: dict[str, dict], ks: list[int],
                 continuous: list[Measure] = ()):
        self.runs, self.gold, self.chunks = runs, gold, chunks
        self.slug_of = {cid: c["slug"] for cid, c in chunks.items()}
        self.measures = [Measure("Success", k) for k in ks] + list(continuous)
        self.cache: dict[str, tuple[dict, int]] = {}

    def __getitem__(self, condition: str) -> tuple[dict, int]:
        """(outcomes by question, the run's depth)."""
        if condition not in self.cache:
            run = read_run(self.runs[condition], self.chunks, questions=self.gold)
            self.cache[condition] = (question_outcomes(run, self.gold, self.slug_of, self.measures),
                                     max((len(ids) for ids in run.values()), default=0))
        return self.cache[condition]


def labelled_flips(c: dict, gold: dict, chunks: dict[str, dict]) -> None:
    """Each flipped question with its text and its gold chunks by name, the first with its title
    and section."""
    for f in c["flipped"]:
        g = gold[f["qid"]]
        first = chunks[g["gold_chunks"][0]]
        label = " — ".join(x for x in (first["title"], first["section"]) if x)
        f.update(question=g["question"], gold_chunks=[chunks[cid]["name"] for cid in g["gold_chunks"]],
                 gold=f"{first['name']} ({label})")


def comparison(outcomes: Outcomes, a: str, b: str, qids: list[str], group: str, k: int, role: str,
               clusters: dict[str, str], seed: int, resamples: int, margin: float | None = None,
               alpha: float = 0.05, interval: str = "percentile") -> dict:
    (out_a, depth_a), (out_b, depth_b) = outcomes[a], outcomes[b]
    c = {"a": a, "b": b, "group": group, "role": role, "depth_a": depth_a, "depth_b": depth_b,
         **compare(out_a, out_b, qids, k, clusters, seed, resamples, margin, alpha, interval)}
    labelled_flips(c, outcomes.gold, outcomes.chunks)
    return c


def continuous_tests(outcomes: Outcomes, primaries: list[dict], secondaries: list[dict], groups: dict,
                     measures: list[Measure], clusters: dict[str, str], seed: int, resamples: int,
                     margins: dict | None = None, alpha: float = 0.05) -> list[dict]:
    """Each distinct (A, B, group) of the comparisons on each continuous measure (k plays no part),
    primary when a primary compares it; one Holm family. A primary's measure with a margin
    (`margins`, by measure name) is also tested for equivalence."""
    margins = margins or {}
    roles: dict[tuple, str] = {}
    for c in primaries + secondaries:
        roles.setdefault((c["a"], c["b"], c["group"]), c["role"])
    tests = [{"a": a, "b": b, "group": g, "role": role,
              **compare_continuous(outcomes[a][0], outcomes[b][0], groups[g], m.name, clusters, seed, resamples,
                                   margins.get(m.name) if role == "primary" else None, alpha)}
             for (a, b, g), role in roles.items() for m in measures]
    for c, adjusted in zip(tests, holm([c["p"] for c in tests]), strict=True):
        c["holm_p"] = adjusted
    return tests


def failure_rate(outcomes: dict, qids: list[str], k: int) -> float:
    hit = Measure("Success", k).name
    return sum(not outcomes[q][hit] for q in qids) / len(qids)


def agreement(outcomes: Outcomes, conditions: list[str], primaries: list[dict], groups: dict, origins: dict,
              clusters: dict[str, str], seed: int, resamples: int, interval: str = "percentile",
              judged: dict | None = None) -> list[dict]:
    """Per human group of a primary and each generated group with questions, then each judged
    group (its members by their graded qrels: `judged`), at the primary's k: every condition's
    failure rate on both, Kendall's tau-b between the two orderings, and each primary's rule
    applied to the generated or judged group beside its verdict (not a primary: no Holm, no
    preregistration). An entry names its other group under its origin (`generated`, `judged`)."""
    out = {}
    for p in primaries:
        if origins.get(p["group"]) != "human":
            continue
        for side, members in (("generated", groups), ("judged", judged or {})):
            for g in (g for g, origin in origins.items() if origin == side and members.get(g)):
                key = (p["group"], g, p["k"])
                if key not in out:
                    rates = {"human": {c: failure_rate(outcomes[c][0], groups[p["group"]], p["k"]) for c in conditions},
                             side: {c: failure_rate(outcomes[c][0], members[g], p["k"]) for c in conditions}}
                    out[key] = {"human": p["group"], side: g, "measure": f"failure@{p['k']}", "k": p["k"],
                                "failure": rates, **ordering_agreement(rates["human"], rates[side],
                                                                       ANCHOR_TAU if side == "generated" else None),
                                "verdicts": []}
                c = compare(outcomes[p["a"]][0], outcomes[p["b"]][0], members[g], p["k"], clusters, seed, resamples)
                out[key]["verdicts"].append({
                    "a": p["a"], "b": p["b"],
                    "human": {k: p[k] for k in ("N", "diff", "ci", "sign_p", "verdict", "equivalence") if k in p},
                    side: {**{k: c[k] for k in ("N", "diff", "ci", "sign_p")},
                           "verdict": verdict(*verdict_interval(c, interval))}})
    return list(out.values())


def stated_language_warning(chunks: dict[str, dict], found: dict) -> dict | None:
    """The chunks' text against a stated corpus.language (a language found from the text agrees with it)."""
    return script_warning((c["text"] for c in chunks.values()), found["language"]) if found["found"] == "stated" else None


def pairs(input, output, params, **_) -> None:
    t = wording(params.language)
    gold = read_json(input.gold)["questions"]
    chunks = {c["chunk_id"]: c for c in read_jsonl(input.chunks)}
    # a judged question without gold is scored by its graded qrels, beside the human verdicts only
    graded = judged_gold(gold, {q: g for path in input.judgments for q, g in read_json(path)["grades"].items()},
                         {cid: c["slug"] for cid, c in chunks.items()})
    conditions = [condition_name(r, v) for r, v in params.conditions]
    groups = group_members(gold, dict(params.groups))
    primary = list(params.primary)
    ks = sorted({int(k) for k in params.ks} | {p["k"] for p in primary})
    measures = [parse(name) for name in params.continuous]
    outcomes = Outcomes(dict(zip(conditions, input.runs, strict=True)), graded, chunks, ks, measures)
    clusters = {qid: cluster_of({"id": qid, **g}, params.cluster_key) for qid, g in gold.items()}
    seed, resamples, alpha = int(params.seed), int(params.resamples), float(params.alpha)
    interval = params.interval
    margins = dict(params.equivalence_margin or {})
    known = {f"fail@{p['k']}" for p in primary} | {m.name for m in measures}
    if unknown := sorted(set(margins) - known):   # a margin no primary measure takes would test nothing
        raise InputError(f"config pairs.equivalence_margin: {unknown[0]!r} is not a measure of the primaries "
                         f"({', '.join(sorted(known))})")

    primaries = []
    for p in primary:
        c = comparison(outcomes, p["a"], p["b"], groups[p["group"]], p["group"], p["k"], "primary", clusters,
                       seed, resamples, margins.get(f"fail@{p['k']}"), alpha, interval)
        primaries.append({**c, "verdict": verdict(*verdict_interval(c, interval), c.get("equivalence")),
                          "power": power_summary(c, float(params.alpha), float(params.power))})
    declared = {(p["a"], p["b"], p["group"], p["k"]) for p in primary}
    secondaries = [comparison(outcomes, a, b, qids, g, int(k), "secondary", clusters, seed, resamples)
                   for a, b in params.comparisons for g, qids in groups.items() if qids
                   for k in params.ks if (a, b, g, int(k)) not in declared]
    correction = params.secondary_correction
    adjust = benjamini_hochberg if correction == "bh" else holm
    for c, adjusted in zip(secondaries, adjust([c["sign_p"] for c in secondaries]), strict=True):
        c[f"{correction}_p"] = adjusted
    continuous = {"measures": [m.name for m in measures], "seed": seed, "resamples": resamples,
                  "bound_gap": BOUND_GAP, "grid_max": GRID_MAX, "family": "own",
                  "tests": continuous_tests(outcomes, primaries, secondaries, groups, measures, clusters, seed,
                                            resamples, margins, alpha)}

    rule = {"primary": primary, "fallback_used": bool(params.fallback_used),
            "fallback_variant": params.fallback_variant, "replaces": LLM_VARIANT, "alpha": float(params.alpha),
            "power": float(params.power), "seed": seed, "resamples": resamples, "cluster_key": params.cluster_key,
            "verdicts": {v: t[v] for v in ("holds", "undecided", "reversed")}}
    if margins:
        rule.update(equivalence_margin=margins, verdicts={**rule["verdicts"], "equivalent": t["equivalent"]})
    if correction != "holm":
        rule["secondary_correction"] = correction
    if interval != "percentile":
        rule["interval"] = interval
    files = question_files(read_json(input.sets))
    origins = group_origins(dict(params.groups), {f["set"] for f in files if f.get("generated")},
                            frozenset(f["set"] for f in files if set(f["kinds"]) == {"none"}))
    agreed = agreement(outcomes, conditions, primaries, groups, origins, clusters, seed, resamples, interval,
                       group_members(graded, dict(params.groups)))
    warnings = [*(w for f in files for w in f.get("warnings", [])),
                *filter(None, [stated_language_warning(chunks, params.corpus["language"]),
                               cluster_key_warning([{"id": qid, **g} for qid, g in gold.items()], params.cluster_key)])]
    paid = [os.path.getmtime(path) for (_, v), path in zip(params.conditions, input.runs, strict=True)
            if v in params.paid_variants]
    kept = kept_to_plan(read_json(input.preregistration), question_hashes(read_jsonl(input.questions)),
                        read_json(input.plan), sha256_file(input.chunks),
                        datetime.fromtimestamp(min(paid), timezone.utc).isoformat() if paid else None)
    answers = answer_sentences({"comparisons": primaries}, t)
    write_json(output.json, {"language": params.language, "title": params.title, "corpus": dict(params.corpus),
                             "rule": rule, "question_files": files, "answers": answers,
                             "kept_to_plan": kept, "warnings": warnings, "comparisons": primaries + secondaries,
                             "continuous": continuous, **({"agreement": agreed} if agreed else {})})
    write_text(output.md, pairs_markdown(rule, files, primaries, secondaries, kept, t, params.corpus, params.title,
                                         warnings, continuous, agreed))
    log_warnings(warnings)
    if not primaries:
        print("no primary comparison (pairs.primary is empty, or names no condition this run has): no verdict")
    for c in primaries:
        print(f"{c['a']} vs {c['b']} {c['group']} fail@{c['k']}: diff {c['diff']:+.3f}, "
              f"95 % [{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}], BCa [{c['ci_bca'][0]:+.3f}, {c['ci_bca'][1]:+.3f}], "
              + (f"cluster-t [{c['ci_cluster_t'][0]:+.3f}, {c['ci_cluster_t'][1]:+.3f}], " if c["ci_cluster_t"] else "")
              + f"p {c['sign_p']:.3f}: {verdict_text(c, t)}"
              + (f" (TOST p {c['equivalence']['p']:.3f})" if "equivalence" in c else ""))
        k = c["power"]["clustered"]
        print(f"  power: smallest difference {c['power']['min_detectable_diff']} (sign test, independent), "
              f"{k['min_detectable_diff']} (interval, clustered: deff {k['deff']:.2f}, ICC {k['icc']:.3f})")
    for line in agreement_lines(agreed, t):
        print(line)
    print(f"secondary comparisons: {len(secondaries)} ({'BH' if correction == 'bh' else 'Holm'}-adjusted, no verdict)")
    for c in continuous["tests"]:
        print(f"{c['a']} vs {c['b']} {c['group']} {c['measure']}: diff {c['diff']:+.4f}, "
              f"95 % [{c['ci'][0]:+.4f}, {c['ci'][1]:+.4f}], randomization p {c['p']:.4f} ({c['p_method']}"
              + (", within [{:.5f}, {:.5f}]".format(*c["p_bounds"]) if c["p_method"] == "bounded" else "") + "), "
              f"Holm {c['holm_p']:.4f}")
    print("kept to the plan" if kept["kept"] else f"departs from the preregistration: edited {kept['edited']}, "
          f"added {kept['added']}, removed {kept['removed']}, changed {list(kept['rule_changed'])}")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
