"""pairs: per-question paired comparisons, a verdict for the primaries by a rule fixed in config.

The primary comparisons (`pairs.primary`) are declared before the run; every other comparison
(`pairs.variant_pairs` x retrievers x groups x ks) is secondary, one family with Holm-adjusted
sign-test p values and no verdict. Without an LLM backend A1 is absent and the primaries use
`pairs.fallback_variant` (X1) in its place; the report says so.
"""
from __future__ import annotations

from .errors import InputError
from .fileio import read_json, read_jsonl, write_json, write_text
from .outcomes import group_members, question_outcomes
from .questions import cluster_of
from .runs import read_run
from .paired import compare, power_summary, verdict
from .stats import holm
from .tables import markdown_table
from .texts import texts

LLM_VARIANT = "A1"


def resolve_primary(specs: list[dict], conditions: list[str], dense: str, fallback: str, groups: list[str],
                    problem=lambda i, message: InputError(f"config pairs.primary[{i}]: {message}")
                    ) -> tuple[list[dict], bool]:
    """The primaries with `{dense}` filled in and, when A1 is absent, A1 replaced by the fallback;
    `problem(i, message)` is the error for primary i."""
    out, used = [], False
    for i, spec in enumerate(specs):
        sides = []
        for side in (spec["a"], spec["b"]):
            cond = side.replace("{dense}", dense)
            retriever, _, variant = cond.rpartition(":")
            if cond not in conditions and variant == LLM_VARIANT and f"{retriever}:{fallback}" in conditions:
                cond, used = f"{retriever}:{fallback}", True
            if cond not in conditions:
                raise problem(i, f"{cond!r} is not a condition of this run ({', '.join(conditions)})")
            sides.append(cond)
        if spec["group"] not in groups:
            raise problem(i, f"group {spec['group']!r} is not among {groups}")
        out.append({"a": sides[0], "b": sides[1], "group": spec["group"], "k": int(spec["k"]),
                    "declared": {"a": spec["a"], "b": spec["b"]}})
    return out, used


def question_files(records: dict[str, dict]) -> list[dict]:
    """Each question set as the questions stage read it: format, gold kinds, content sha256 and
    its source files (path, sha256, modification time)."""
    return [{"set": name, **r} for name, r in records.items()]


def _rank(rank, depth: int, t: dict) -> str:
    return str(rank) if rank is not None else t["not_found"].format(depth=depth)


def rule_texts(rule: dict, n_secondary: int, t: dict) -> dict:
    """The decision rule in words: {primary: [line], fallback: str | None, rule, secondary}."""
    return {"primary": [f"{p['a']} vs {p['b']}, {p['group']}, {t['fail_rate_at'].format(k=p['k'])}"
                        for p in rule["primary"]],
            "fallback": t["fallback"].format(fallback=rule["fallback_variant"]) if rule["fallback_used"] else None,
            "rule": t["rule_text"].format(resamples=rule["resamples"], seed=rule["seed"],
                                          cluster_key=rule["cluster_key"], holds=t["holds"],
                                          undecided=t["undecided"], reversed=t["reversed"]),
            "secondary": t["secondary_rule"].format(n=n_secondary)}


def file_rows(files: list[dict], t: dict) -> tuple[list[str], list[list[str]]]:
    kinds = lambda f: ", ".join(f"{k} {n}" for k, n in f["kinds"].items())  # noqa: E731
    return ([t["set"], t["gold"], t["file"], t["content_sha256"], "sha256", t["modified"]],
            [[f["set"], kinds(f), x["path"], f["content_sha256"], x["sha256"] or "-", x["mtime"] or "-"]
             for f in files for x in f["files"]])


def primary_texts(c: dict, t: dict, strong=str, verdict_line: bool = True) -> list[str]:
    """The lines of one primary comparison: counts, test, interval, verdict (through `strong`), power."""
    a, b, n, p = c["a"], c["b"], c["N"], c["power"]
    mdd = f"{p['min_detectable_diff']:.3f}" if p["min_detectable_diff"] is not None else t["mdd_none"]
    needed = (str(p["questions_needed"]) if p["questions_needed"] is not None
              else t["needed_over"].format(max_n=p["max_n"]) if p["needed_over_max"] else t["needed_none"])
    counts = {k: c[k] for k in ("both_hit", "both_missed", "only_a", "only_b")}
    lines = [t["failures"].format(a=a, b=b, fa=c["fail_a"], fb=c["fail_b"], n=n, diff=c["diff"]),
             t["counts"].format(a=a, b=b, **counts),
             t["sign"].format(d=c["only_a"] + c["only_b"], p=c["sign_p"]),
             t["interval"].format(clusters=c["clusters"], resamples=c["resamples"], seed=c["seed"],
                                  lo=c["ci"][0], hi=c["ci"][1])]
    if verdict_line:
        lines.append(f"{t['verdict']}: {strong(t[c['verdict']])}")
    lines.append(t["power_title"].format(alpha=p["alpha"], power=p["power"], psi=p["discordance"],
                                         d=p["discordant"], n=n)
                 + ": " + t["mdd"].format(n=n, mdd=mdd) + "; " + t["needed"].format(diff=abs(c["diff"]), needed=needed))
    return lines


def primary_title(i: int, c: dict, t: dict) -> str:
    return (f"{t['primary'].format(i=i)}: {c['a']} vs {c['b']}, {c['group']} "
            f"{t['questions_n'].format(n=c['N'])}, {t['fail_rate_at'].format(k=c['k'])}")


def flip_rows(c: dict, t: dict) -> tuple[list[str], list[list[str]]]:
    return ([t["qid"], t["question"], t["gold_chunk"], f"{t['rank']} {c['a']}", f"{t['rank']} {c['b']}"],
            [[f["qid"], f["question"], f["gold"], _rank(f["rank_a"], c["depth_a"], t),
              _rank(f["rank_b"], c["depth_b"], t)] for f in c["flipped"]])


def secondary_rows(comparisons: list[dict], t: dict) -> tuple[list[str], list[list[str]]]:
    return (["A", "B", t["group"], "k", "N", "fail A", "fail B", "only A", "only B", t["diff"],
             t["interval_short"], "p", t["holm"]],
            [[c["a"], c["b"], c["group"], str(c["k"]), str(c["N"]), str(c["fail_a"]), str(c["fail_b"]),
              str(c["only_a"]), str(c["only_b"]), f"{c['diff']:+.3f}", f"[{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}]",
              f"{c['sign_p']:.3f}", f"{c['holm_p']:.3f}"] for c in comparisons])


def markdown(rule: dict, files: list[dict], primaries: list[dict], secondaries: list[dict], t: dict) -> str:
    """pairs.md: the rule and the question files first, then the numbers."""
    r = rule_texts(rule, len(secondaries), t)
    lines = [f"# {t['pairs_title']}", "", f"## {t['rule_title']}", "", f"{t['primary_list']}:",
             *(f"{i}. {p}" for i, p in enumerate(r["primary"], 1)), ""]
    if r["fallback"]:
        lines += [r["fallback"], ""]
    lines += [r["rule"], "", r["secondary"], "", f"## {t['files_title']}", "", t["files_note"], "",
              markdown_table(*file_rows(files, t))]
    for i, c in enumerate(primaries, 1):
        lines += ["", f"## {primary_title(i, c, t)}", "",
                  *(f"- {x}" for x in primary_texts(c, t, lambda v: f"**{v}**")), "",
                  f"### {t['flips'].format(n=len(c['flipped']))}", "",
                  markdown_table(*flip_rows(c, t)) if c["flipped"] else t["no_flips"]]
    if secondaries:
        lines += ["", f"## {t['secondary_title']}", "", t["none_promoted"], "",
                  markdown_table(*secondary_rows(secondaries, t))]
    return "\n".join(lines) + "\n"


def run(input, output, params, **_) -> None:
    t = texts(params.language)
    gold = read_json(input.gold)["questions"]
    chunks = {c["chunk_id"]: c for c in read_jsonl(input.chunks)}
    slug_of = {cid: c["slug"] for cid, c in chunks.items()}
    conditions = [f"{r}:{v}" for r, v in params.conditions]
    runs = dict(zip(conditions, input.runs, strict=True))
    groups = group_members(gold, dict(params.groups))
    primary, fallback_used = list(params.primary), bool(params.fallback_used)
    ks = sorted({int(k) for k in params.ks} | {p["k"] for p in primary})
    seed, resamples, alpha, power = int(params.seed), int(params.resamples), float(params.alpha), float(params.power)
    clusters = {qid: cluster_of({"id": qid, **g}, params.cluster_key) for qid, g in gold.items()}
    cache: dict[str, tuple[dict, int]] = {}

    def outcomes(cond: str) -> tuple[dict, int]:
        if cond not in cache:
            run_ = read_run(runs[cond], chunks)
            cache[cond] = (question_outcomes(run_, gold, slug_of, ks, 10, 5),
                           max((len(ids) for ids in run_.values()), default=0))
        return cache[cond]

    def comparison(a: str, b: str, group: str, k: int, role: str) -> dict:
        (out_a, depth_a), (out_b, depth_b) = outcomes(a), outcomes(b)
        c = {"a": a, "b": b, "group": group, "role": role, "depth_a": depth_a, "depth_b": depth_b,
             **compare(out_a, out_b, groups[group], k, clusters, seed, resamples)}
        for f in c["flipped"]:
            g = gold[f["qid"]]
            first = chunks[g["gold_chunks"][0]]
            label = " — ".join(x for x in (first["title"], first["section"]) if x)
            f.update(question=g["question"], gold_chunks=g["gold_chunks"], gold=f"{first['chunk_id']} ({label})")
        return c

    primaries = []
    for p in primary:
        c = comparison(p["a"], p["b"], p["group"], p["k"], "primary")
        c["verdict"] = verdict(*c["ci"])
        c["power"] = power_summary(c, alpha, power)
        primaries.append(c)
    keys = {(p["a"], p["b"], p["group"], p["k"]) for p in primary}
    secondaries = [comparison(a, b, g, int(k), "secondary")
                   for a, b in params.comparisons for g, qids in groups.items() if qids
                   for k in params.ks if (a, b, g, int(k)) not in keys]
    for c, adjusted in zip(secondaries, holm([c["sign_p"] for c in secondaries]), strict=True):
        c["holm_p"] = adjusted

    rule = {"primary": primary, "fallback_used": fallback_used, "fallback_variant": params.fallback_variant,
            "replaces": LLM_VARIANT, "alpha": alpha, "power": power, "seed": seed,
            "resamples": resamples, "cluster_key": params.cluster_key,
            "verdicts": {v: t[v] for v in ("holds", "undecided", "reversed")}}
    files = question_files(read_json(input.sets))
    write_json(output.json, {"language": params.language, "rule": rule, "question_files": files,
                             "comparisons": primaries + secondaries})
    write_text(output.md, markdown(rule, files, primaries, secondaries, t))
    for c in primaries:
        print(f"{c['a']} vs {c['b']} {c['group']} fail@{c['k']}: diff {c['diff']:+.3f}, "
              f"95 % [{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}], p {c['sign_p']:.3f}: {t[c['verdict']]}")
    print(f"secondary comparisons: {len(secondaries)} (Holm-adjusted, no verdict)")
