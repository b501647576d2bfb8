"""pairs: per-question paired comparisons, a verdict for the primaries by a rule fixed in config.

The primary comparisons (`pairs.primary`) are declared before the run; every other comparison
(`pairs.variant_pairs` x retrievers x groups x ks) is secondary, one family with Holm-adjusted
sign-test p values and no verdict. Each distinct (A, B, group) of either kind is also compared on
the continuous measures (`continuous`: MRR and nDCG at score.mrr_k and score.ndcg_k) by the paired
randomization test, a Holm family of its own, no verdict. Without an LLM backend A1 is absent and the primaries use
`pairs.fallback_variant` (X1) in its place; the report says so.
"""
from __future__ import annotations

from ..fileio import read_json, read_jsonl, sha256_file, write_json, write_text
from ..metrics import Measure, parse
from ..outcomes import condition_name, group_members, question_outcomes
from ..paired import LLM_VARIANT, compare, compare_continuous, power_summary, verdict
from ..planning import kept_to_plan, question_hashes
from ..language import script_warning
from ..presentation.pages import log_warnings, pairs_markdown
from ..questionset import cluster_key_warning, cluster_of
from ..runs import read_run
from ..stats import BOUND_GAP, GRID_MAX, holm
from ..presentation.wording import wording


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
               clusters: dict[str, str], seed: int, resamples: int) -> dict:
    (out_a, depth_a), (out_b, depth_b) = outcomes[a], outcomes[b]
    c = {"a": a, "b": b, "group": group, "role": role, "depth_a": depth_a, "depth_b": depth_b,
         **compare(out_a, out_b, qids, k, clusters, seed, resamples)}
    labelled_flips(c, outcomes.gold, outcomes.chunks)
    return c


def continuous_tests(outcomes: Outcomes, primaries: list[dict], secondaries: list[dict], groups: dict,
                     measures: list[Measure], clusters: dict[str, str], seed: int, resamples: int) -> list[dict]:
    """Each distinct (A, B, group) of the comparisons on each continuous measure (k plays no part),
    primary when a primary compares it; one Holm family."""
    roles: dict[tuple, str] = {}
    for c in primaries + secondaries:
        roles.setdefault((c["a"], c["b"], c["group"]), c["role"])
    tests = [{"a": a, "b": b, "group": g, "role": role,
              **compare_continuous(outcomes[a][0], outcomes[b][0], groups[g], m.name, clusters, seed, resamples)}
             for (a, b, g), role in roles.items() for m in measures]
    for c, adjusted in zip(tests, holm([c["p"] for c in tests]), strict=True):
        c["holm_p"] = adjusted
    return tests


def stated_language_warning(chunks: dict[str, dict], found: dict) -> dict | None:
    """The chunks' text against a stated corpus.language (a language found from the text agrees with it)."""
    return script_warning((c["text"] for c in chunks.values()), found["language"]) if found["found"] == "stated" else None


def run(input, output, params, **_) -> None:
    t = wording(params.language)
    gold = read_json(input.gold)["questions"]
    chunks = {c["chunk_id"]: c for c in read_jsonl(input.chunks)}
    conditions = [condition_name(r, v) for r, v in params.conditions]
    groups = group_members(gold, dict(params.groups))
    primary = list(params.primary)
    ks = sorted({int(k) for k in params.ks} | {p["k"] for p in primary})
    measures = [parse(name) for name in params.continuous]
    outcomes = Outcomes(dict(zip(conditions, input.runs, strict=True)), gold, chunks, ks, measures)
    clusters = {qid: cluster_of({"id": qid, **g}, params.cluster_key) for qid, g in gold.items()}
    seed, resamples = int(params.seed), int(params.resamples)

    primaries = []
    for p in primary:
        c = comparison(outcomes, p["a"], p["b"], groups[p["group"]], p["group"], p["k"], "primary", clusters,
                       seed, resamples)
        primaries.append({**c, "verdict": verdict(*c["ci"]),
                          "power": power_summary(c, float(params.alpha), float(params.power))})
    declared = {(p["a"], p["b"], p["group"], p["k"]) for p in primary}
    secondaries = [comparison(outcomes, a, b, qids, g, int(k), "secondary", clusters, seed, resamples)
                   for a, b in params.comparisons for g, qids in groups.items() if qids
                   for k in params.ks if (a, b, g, int(k)) not in declared]
    for c, adjusted in zip(secondaries, holm([c["sign_p"] for c in secondaries]), strict=True):
        c["holm_p"] = adjusted
    continuous = {"measures": [m.name for m in measures], "seed": seed, "resamples": resamples,
                  "bound_gap": BOUND_GAP, "grid_max": GRID_MAX, "family": "own",
                  "tests": continuous_tests(outcomes, primaries, secondaries, groups, measures, clusters, seed,
                                            resamples)}

    rule = {"primary": primary, "fallback_used": bool(params.fallback_used),
            "fallback_variant": params.fallback_variant, "replaces": LLM_VARIANT, "alpha": float(params.alpha),
            "power": float(params.power), "seed": seed, "resamples": resamples, "cluster_key": params.cluster_key,
            "verdicts": {v: t[v] for v in ("holds", "undecided", "reversed")}}
    files = question_files(read_json(input.sets))
    warnings = [*(w for f in files for w in f.get("warnings", [])),
                *filter(None, [stated_language_warning(chunks, params.corpus["language"]),
                               cluster_key_warning([{"id": qid, **g} for qid, g in gold.items()], params.cluster_key)])]
    kept = kept_to_plan(read_json(input.preregistration), question_hashes(read_jsonl(input.questions)),
                        read_json(input.plan), sha256_file(input.chunks))
    write_json(output.json, {"language": params.language, "title": params.title, "corpus": dict(params.corpus),
                             "rule": rule, "question_files": files,
                             "kept_to_plan": kept, "warnings": warnings, "comparisons": primaries + secondaries,
                             "continuous": continuous})
    write_text(output.md, pairs_markdown(rule, files, primaries, secondaries, kept, t, params.corpus, params.title,
                                         warnings, continuous))
    log_warnings(warnings)
    if not primaries:
        print("no primary comparison (pairs.primary is empty, or names no condition this run has): no verdict")
    for c in primaries:
        print(f"{c['a']} vs {c['b']} {c['group']} fail@{c['k']}: diff {c['diff']:+.3f}, "
              f"95 % [{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}], p {c['sign_p']:.3f}: {t[c['verdict']]}")
    print(f"secondary comparisons: {len(secondaries)} (Holm-adjusted, no verdict)")
    for c in continuous["tests"]:
        print(f"{c['a']} vs {c['b']} {c['group']} {c['measure']}: diff {c['diff']:+.4f}, "
              f"95 % [{c['ci'][0]:+.4f}, {c['ci'][1]:+.4f}], randomization p {c['p']:.4f} ({c['p_method']}"
              + (", within [{:.5f}, {:.5f}]".format(*c["p_bounds"]) if c["p_method"] == "bounded" else "") + "), "
              f"Holm {c['holm_p']:.4f}")
    print("kept to the plan" if kept["kept"] else f"departs from the preregistration: edited {kept['edited']}, "
          f"added {kept['added']}, removed {kept['removed']}, changed {list(kept['rule_changed'])}")
