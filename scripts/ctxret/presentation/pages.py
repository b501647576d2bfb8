"""Presentation: computed results (score.json, pairs.json, the ledgers) as words, rows and
Markdown, in the report language (ctxret.presentation.wording). It reads dicts, never files, and imports no
stage, so the stages that write reports (score, pairs, report) all share it.
"""
from __future__ import annotations

from ..fileio import canonical_json
from ..metrics import MEASURES, Measure, parse
from .tables import Shortened, markdown_table
from .wording import LANGUAGE_NAMES, wording


def _count(c: dict) -> str:
    return f"{c['n']}/{c['N']} ({c['rate']:.3f})"


# The columns of score.md that keep their old names; every other measure's column is its name.
LABELS = {"Success": "fail@{k}", "Pass": "recall@{k} = Pass@{k}", "DocSuccess": "doc recall@{k}", "RR": "MRR@{k}"}
HEADLINE = ("DocSuccess", "RR", "nDCG")  # on the main group in the one-line-per-condition table


def shown(measures: list[Measure]) -> list[Measure]:
    """The measures in the order of score.md's columns: by family (as registered), chunk level first."""
    families = list(MEASURES)
    return sorted(measures, key=lambda m: (families.index(m.family), m.level != "chunk"))


def label(m: Measure) -> str:
    return LABELS.get(m.family, "{name}").format(k=m.k, name=m.name)


def cell(summary: dict, m: Measure) -> str:
    """A measure's first figure in a summary: a count of questions, or a mean."""
    value = summary[m.keys[0]]
    return _count(value) if isinstance(value, dict) else f"{value:.3f}"


def headline_rows(results: list[dict], groups: list[str], main: str, measures: list[Measure],
                  t: dict) -> tuple[list[str], list[list[str]]]:
    """One line per condition: fail@k per group, then doc recall, MRR and nDCG on the main group."""
    by = {(r["condition"], r["group"]): r["summary"] for r in results}
    fails = [m for m in measures if m.family == "Success"]
    on_main = [m for m in shown(measures) if m.family in HEADLINE]
    head = [t["condition"], *(f"{g} {label(m)}" for g in groups for m in fails),
            *(f"{label(m)} ({main})" for m in on_main)]
    rows = [[c, *(cell(by[c, g], m) for g in groups for m in fails), *(cell(by[c, main], m) for m in on_main)]
            for c in dict.fromkeys(r["condition"] for r in results)]
    return head, rows


def detail_rows(results: list[dict], measures: list[Measure], t: dict) -> tuple[list[str], list[list[str]]]:
    columns = shown(measures)
    head = [t["condition"], t["group"], "N", *map(label, columns)]
    rows = [[r["condition"], r["group"], str(r["summary"]["N"]), *(cell(r["summary"], m) for m in columns)]
            for r in results]
    return head, rows


def report_title(title: str, about: dict, report_language: str) -> str:
    """report.title, or (empty) one naming the kept documents, their language and the corpus
    (`about`: {path, documents, language: the language record of the plan})."""
    if title:
        return title
    t, n = wording(report_language), about["documents"]
    name = LANGUAGE_NAMES[report_language].get(about["language"]["language"])
    documents = t["documents"].format(n=n, language=f"{name} " if name else "", s="" if n == 1 else "s")
    return t["report_title"].format(documents=documents, corpus=about["path"])


def corpus_line(about: dict, t: dict) -> str:
    """The corpus, its kept documents and its language, and how the language was known."""
    found = about["language"]
    how = (t["language_found"].format(reason=found["reason"], hangul=found["hangul_share"],
                                      latin=found["latin_share"])
           if found["found"] == "auto" else t["language_stated"])
    return t["corpus_line"].format(corpus=about["path"], n=about["documents"], language=found["language"], how=how)


def score_markdown(results: list[dict], groups: list[str], main: str, measures: list[Measure], t: dict,
                   title: str) -> str:
    """score.md: one line per condition, then every group in detail."""
    return (f"# {t['score_title']}: {title}\n\n{t['score_note']}\n\n"
            f"{markdown_table(*headline_rows(results, groups, main, measures, t))}\n\n"
            f"## {t['score_detail']}\n\n{markdown_table(*detail_rows(results, measures, t))}\n")


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
            [[f["set"], kinds(f), x["path"], Shortened(f["content_sha256"]), Shortened(x["sha256"] or "-"),
              x["mtime"] or "-"]
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


def continuous_note(continuous: dict, t: dict) -> str:
    """How the continuous measures are compared, and the family they form."""
    return t["continuous_rule"].format(measures=", ".join(label(parse(m)) for m in continuous["measures"]),
                                       n=len(continuous["tests"]), bound_gap=f"{continuous['bound_gap']:f}".rstrip("0"),
                                       grid_max=continuous["grid_max"], seed=continuous["seed"],
                                       resamples=continuous["resamples"])


def randomization_p(c: dict) -> str:
    """A continuous test's p to three decimals; a bounded one marked *, as a range when its bounds
    differ at the third decimal."""
    if c["p_method"] == "exact":
        return f"{c['p']:.3f}"
    low, high = (f"{x:.3f}" for x in c["p_bounds"])
    return f"{c['p']:.3f} *" if low == high else f"{low}–{high} *"


def continuous_rows(tests: list[dict], t: dict) -> tuple[list[str], list[list[str]]]:
    return (["A", "B", t["group"], t["measure"], "N", t["mean_of"].format(side="A"), t["mean_of"].format(side="B"),
             "B - A", t["interval_short"], t["nonzero"], "p", t["holm"], t["role"]],
            [[c["a"], c["b"], c["group"], label(parse(c["measure"])), str(c["N"]), f"{c['mean_a']:.3f}",
              f"{c['mean_b']:.3f}", f"{c['diff']:+.3f}", f"[{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}]",
              str(c["nonzero"]), randomization_p(c),
              f"{c['holm_p']:.3f}", t[f"role_{c['role']}"]] for c in tests])


def warning_lines(warnings: list[dict], t: dict) -> list[str]:
    """Settings that are legal but surprising ({kind, ...}: sample, language, cluster_key), in words."""
    return [t[f"warn_{w['kind']}"].format(**w) for w in warnings]


def log_warnings(warnings: list[dict]) -> None:
    """The warnings as a stage's log prints them: a `warning:` line each, in English."""
    for line in warning_lines(warnings, wording("en")):
        print(f"warning: {line}")


def primary_list(r: dict, t: dict) -> list[str]:
    """The numbered primary comparisons, or the line saying there are none, so no verdict."""
    return [f"{i}. {p}" for i, p in enumerate(r["primary"], 1)] or [t["no_primary"]]


def pairs_markdown(rule: dict, files: list[dict], primaries: list[dict], secondaries: list[dict], kept: dict,
                   t: dict, about: dict, title: str, warnings: list[dict] = (), continuous: dict | None = None) -> str:
    """pairs.md: the corpus, the warnings, whether the run kept to its preregistration, the rule
    and the question files first, then the numbers."""
    r = rule_texts(rule, len(secondaries), t)
    lines = [f"# {t['pairs_title']}: {title}", "", corpus_line(about, t), ""]
    if warnings:
        lines += [f"## {t['warnings_title']}", "", *(f"- {x}" for x in warning_lines(warnings, t)), ""]
    lines += [f"## {t['kept_title']}", "", *(f"- {x}" for x in kept_lines(kept, t)),
              "", f"## {t['rule_title']}", "", f"{t['primary_list']}:",
              *primary_list(r, t), ""]
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
    if continuous and continuous["tests"]:
        lines += ["", f"## {t['continuous_title']}", "", continuous_note(continuous, t), "",
                  markdown_table(*continuous_rows(continuous["tests"], t))]
    return "\n".join(lines) + "\n"


def _questions_for(diff: str, n: int | None, p: dict, t: dict) -> str:
    return (t["plan_needs"].format(diff=diff, n=f"{n:,}") if n is not None
            else t["plan_needs_over"].format(diff=diff, max_n=p["max_n"]))


def _needed_cell(n: int | None, p: dict) -> str:
    return f"{n:,}" if n is not None else f"> {p['max_n']:,}"


def plan_rows(p: dict, t: dict) -> tuple[list[str], list[list[str]]]:
    """Per test (the verdict's interval, the sign test): the minimum detectable difference and
    the questions each planning difference needs."""
    diffs = list(p["interval"]["needed"])
    return ([t["plan_test"].format(alpha=p["alpha"], power=p["power"]), t["plan_mdd_short"].format(n=p["N"]), *(t["plan_needed_short"].format(diff=d) for d in diffs)],
            [[t[f"plan_{name}"], "-" if p[name]["min_detectable_diff"] is None else f"{p[name]['min_detectable_diff']:.3f}",
              *(_needed_cell(p[name]["needed"][d], p) for d in diffs)] for name in ("interval", "sign")])


def plan_sentence(p: dict, t: dict) -> str:
    """The plain sentence of a planned primary, by the verdict's interval: what its questions can
    see, what more would."""
    mdd = p["interval"]["min_detectable_diff"]
    head = (t["plan_mdd"].format(n=p["N"], mdd=mdd, power=p["power"]) if mdd is not None
            else t["plan_mdd_none"].format(n=p["N"], power=p["power"]))
    needed = "; ".join(_questions_for(d, n, p, t) for d, n in p["interval"]["needed"].items())
    return f"{head}; {t['plan_reference']}. {needed[:1].upper()}{needed[1:]}."


def cost_lines(prereg: dict, t: dict) -> list[str]:
    """What A1 will cost and take, or why there is no estimate."""
    e, plan = prereg["estimate"], prereg["plan"]
    duration = t["plan_duration"].format(hours=prereg["duration_hours"], workers=plan["workers"],
                                         seconds=plan["seconds_per_call"])
    if e is None:
        return [t["plan_no_estimate"], duration]
    cost = t["plan_cost"].format(backend=e["backend"], model=e["model"], calls=e["calls"], dollars=e["cost_usd"],
                                 tokens=e["input_tokens_total"], output=e["usage"]["output_tokens"],
                                 version=e["prices_version"])
    if e.get("batch_cost_usd") is not None:   # estimates written before the batch prices have none
        cost += t["plan_cost_batch"].format(online=e["online_cost_usd"], batch=e["batch_cost_usd"],
                                            paid=t[f"plan_pays_{e['pays']}"])
    return [cost, duration]


def preregistration_markdown(prereg: dict, t: dict) -> str:
    """preregistration.md: what is committed to, what A1 will cost, what the questions can detect."""
    plan, corpus = prereg["plan"], prereg["corpus"]
    r = rule_texts(plan, prereg["secondary_family"], t)
    lines = [f"# {t['prereg_title']}", "", t["prereg_note"].format(written=prereg["written"]), "",
             f"## {t['prereg_committed']}", "", f"{t['primary_list']}:",
             *primary_list(r, t), ""]
    if r["fallback"]:
        lines += [r["fallback"], ""]
    lines += [r["rule"], "", r["secondary"], "",
              t["prereg_power_setting"].format(alpha=plan["alpha"], power=plan["power"]), "",
              t["prereg_corpus"].format(files=len(corpus["files"]), **{k: corpus[k] for k in
                                        ("format", "path", "sha256", "documents", "chunks")}), "",
              t["prereg_questions"].format(n=len(prereg["questions"])), "",
              markdown_table(*file_rows(prereg["question_files"], t)), "",
              f"## {t['prereg_cost_title']}", "", *(f"- {x}" for x in cost_lines(prereg, t)), "",
              f"## {t['prereg_power_title']}"]
    for i, p in enumerate(prereg["primaries"], 1):
        lines += ["", f"### {t['primary'].format(i=i)}: {p['a']} vs {p['b']}, {p['group']} "
                      f"{t['questions_n'].format(n=p['N'])}, {t['fail_rate_at'].format(k=p['k'])}", ""]
        if p["planning"] is None:
            lines.append(f"**{t['plan_missing'].format(c=p['missing'])}**")
            continue
        pa, pb = p["planning"]["a"], p["planning"]["b"]
        lines += [f"- {t['plan_pair'].format(a=pa, b=pb, d=p['discordant'], n=p['N'], psi=p['discordance'])}",
                  f"- {t['plan_observed'].format(a=pa, b=pb, diff=p['observed_diff'])}",
                  f"- {t['plan_floor']}", "",
                  markdown_table(*plan_rows(p, t)), "", f"**{plan_sentence(p, t)}**"]
    return "\n".join(lines) + "\n"


def kept_lines(kept: dict, t: dict) -> list[str]:
    """The run against its preregistration: kept, or each departure named."""
    if kept["kept"]:
        return [t["kept_yes"].format(written=kept["preregistered"])]
    lines = [t["kept_no"].format(written=kept["preregistered"])]
    for key in ("edited", "added", "removed"):
        if kept[key]:
            lines.append(t[f"kept_{key}"].format(n=len(kept[key]), ids=", ".join(kept[key])))
    for key, (then, now) in kept["rule_changed"].items():
        lines.append(t["kept_rule"].format(key=key, then=canonical_json(then), now=canonical_json(now)))
    return lines


# chunking.md is in English whatever report.language says (the demo's report language is ko)
CHUNKING_NOTE = ("strict: a chunk of the top {k} has a gold unit (section, clause, source paragraph, given chunk or "
                 "document) as its representative, the unit covering most of its characters; loose: a chunk of the "
                 "top {k} covers any gold unit (what the representative rule costs); passage: a chunk of the top "
                 "{k} holds the whole gold passage. crossing units: chunks covering more than one unit.")


def chunking_rows(strategies: list[dict], k: int, mrr_k: int) -> tuple[list[str], list[list[str]]]:
    """Per strategy and retriever: the chunks, then strict, loose and passage hits."""
    head = ["strategy", "chunks", "mean chars", "crossing units", "retriever", f"strict R@{k}", "hits",
            f"MRR@{mrr_k}", f"loose R@{k}", "hits", f"passage R@{k}", "split passages"]
    rows = []
    for s in strategies:
        for retriever, r in s["retrievers"].items():
            passage = (f"{r['passage_hits'] / r['passage_N']:.3f}" if r["passage_N"] else "-")
            rows.append([s["name"], str(s["count"]), f"{s['mean_chars']:.0f}", str(s["crossing"]), retriever,
                         f"{r['strict_hits'] / r['N']:.3f}", f"{r['strict_hits']}/{r['N']}", f"{r['mrr']:.3f}",
                         f"{r['loose_hits'] / r['N']:.3f}", f"{r['loose_hits']}/{r['N']}", passage,
                         str(len(s["split"]))])
    return head, rows


def chunking_pair_rows(comparisons: list[dict]) -> tuple[list[str], list[list[str]]]:
    return (["A", "B", "N", "fail A", "fail B", "only A", "only B", "B - A", "95 % interval", "p", "Holm p"],
            [[c["a"], c["b"], str(c["N"]), str(c["fail_a"]), str(c["fail_b"]), str(c["only_a"]), str(c["only_b"]),
              f"{c['diff']:+.3f}", f"[{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}]", f"{c['sign_p']:.3f}",
              f"{c['holm_p']:.3f}"] for c in comparisons])


def chunking_markdown(result: dict) -> str:
    """chunking.md from chunking.json: the strategies side by side, the passages each splits, and
    each strategy paired with the first (the experiment's own chunker)."""
    k, strategies, comparisons = result["k"], result["strategies"], result["comparisons"]
    md = [f"# Chunking strategies, T1, {result['questions']} questions ({', '.join(result['sets'])})", "",
          CHUNKING_NOTE.format(k=k), "", markdown_table(*chunking_rows(strategies, k, result["mrr_k"])), ""]
    for s in strategies:
        md.append(f"- {s['name']}: passages split across chunks {len(s['split'])}" +
                  (f": {', '.join(s['split'])}" if s["split"] else ""))
    md += ["", f"## Each strategy against {strategies[0]['name']} (strict hit@{k}; one family, Holm)", "",
           markdown_table(*chunking_pair_rows(comparisons)) if comparisons else "-"]
    return "\n".join(md) + "\n"
