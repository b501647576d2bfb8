"""Presentation: computed results (score.json, pairs.json, the ledgers) as words, rows and
Markdown, in the report language (ctxret.presentation.wording). It reads dicts, never files, and imports no
stage, so the stages that write reports (score, pairs, report) all share it.
"""
from __future__ import annotations

from ctxret.evaluation.metrics import MEASURES, Measure, parse
from ctxret.fileio import canonical_json
from ctxret.languages import language
from ctxret.presentation.wording import wording
from html import escape
from typing import NamedTuple


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
    name = language(about["language"]["language"]).names.get(report_language)
    documents = t["documents"].format(n=n, language=f"{name} " if name else "", s="" if n == 1 else "s")
    return t["report_title"].format(documents=documents, corpus=about["path"])


def corpus_line(about: dict, t: dict) -> str:
    """The corpus, its kept documents and its language, and how the language was known."""
    found = about["language"]
    how = (t["language_found"].format(reason=found["reason"], hangul=found["hangul_share"],
                                      latin=found["latin_share"])
           if found["found"] == "auto" else t["language_stated"])
    if found.get("mixed"):
        how += t["language_mixed"].format(shares=", ".join(f"{c} {s:.0%}" for c, s in found["documents"].items()))
    return t["corpus_line"].format(corpus=about["path"], n=about["documents"], language=found["language"], how=how)


def score_markdown(results: list[dict], groups: list[str], main: str, measures: list[Measure], t: dict,
                   title: str) -> str:
    """score.md: one line per condition, then every group in detail."""
    return (f"# {t['score_title']}: {title}\n\n{t['score_note']}\n\n"
            f"{markdown_table(*headline_rows(results, groups, main, measures, t))}\n\n"
            f"## {t['score_detail']}\n\n{markdown_table(*detail_rows(results, measures, t))}\n")


def judged_line(name: str, judged: dict, t: dict) -> str:
    """score.md's line on a judged set (the judge stage's record): its pool and, where its
    questions have gold, the judge's agreement with it."""
    line = t["judged_line"].format(set=name, questions=judged["questions"], depth=judged["depth"],
                                   pairs=judged["pairs"], paid=judged["paid_calls"], stored=judged["from_store"],
                                   without=len(judged["without_relevant"]))
    agreed = judged["agreement"]
    return line + (t["judged_kappa"].format(n=agreed["questions"], pairs=agreed["pairs"], kappa=agreed["kappa"])
                   if agreed else "")


def _rank(rank, depth: int, t: dict) -> str:
    return str(rank) if rank is not None else t["not_found"].format(depth=depth)


def rule_texts(rule: dict, n_secondary: int, t: dict) -> dict:
    """The decision rule in words: {primary: [line], fallback: str | None, rule, secondary}."""
    return {"primary": [f"{p['a']} vs {p['b']}, {p['group']}, {t['fail_rate_at'].format(k=p['k'])}"
                        for p in rule["primary"]],
            "fallback": t["fallback"].format(fallback=rule["fallback_variant"]) if rule["fallback_used"] else None,
            "rule": t["rule_text"].format(resamples=rule["resamples"], seed=rule["seed"],
                                          cluster_key=rule["cluster_key"], holds=t["holds"],
                                          undecided=t["undecided"], reversed=t["reversed"])
            + (" " + t["rule_cluster_t"] if rule.get("interval") == "cluster_t" else ""),
            "secondary": t["secondary_rule_bh" if "bh" in (rule.get("secondary_correction"),
                                                rule.get("secondary", {}).get("correction")) else "secondary_rule"]
            .format(n=n_secondary)}


def file_rows(files: list[dict], t: dict) -> tuple[list[str], list[list[str]]]:
    def kinds(f: dict) -> str:
        gold = ", ".join(f"{k} {n}" for k, n in f["kinds"].items())
        return f"{gold}; {t['review_counts'].format(**f['review'])}" if "review" in f else gold
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
    if "ci_bca" in c:
        lines.append(t["bca"].format(lo=c["ci_bca"][0], hi=c["ci_bca"][1]))
    if c.get("ci_cluster_t"):
        lines.append(t["cluster_t"].format(clusters=c["clusters"], df=c["clusters"] - 1, lo=c["ci_cluster_t"][0],
                                           hi=c["ci_cluster_t"][1]))
    if "equivalence" in c:
        lines.append(tost_text(c["equivalence"], t))
    if verdict_line:
        lines.append(f"{t['verdict']}: {strong(verdict_text(c, t))}")
    lines.append(t["power_title"].format(alpha=p["alpha"], power=p["power"], psi=p["discordance"],
                                         d=p["discordant"], n=n)
                 + ": " + t["mdd"].format(n=n, mdd=mdd) + "; " + t["needed"].format(diff=abs(c["diff"]), needed=needed))
    if "clustered" in p:
        k = p["clustered"]
        mdd_c = f"{k['min_detectable_diff']:.3f}" if k["min_detectable_diff"] is not None else t["mdd_none"]
        needed_c = (str(k["questions_needed"]) if k["questions_needed"] is not None
                    else t["needed_over"].format(max_n=p["max_n"]) if p["needed_over_max"] else t["needed_none"])
        lines.append(t["power_clustered"].format(deff=k["deff"], size=k["mean_size"], icc=k["icc"], mdd=mdd_c,
                                                 needed=needed_c))
    return lines


def answer_sentence(c: dict, t: dict) -> str:
    """One primary comparison in one sentence: its verdict, the difference and its interval, what
    these questions can see and how many would show the observed difference (both for the verdict's
    interval, with the clusters)."""
    p = c["power"]
    k = p.get("clustered", p)
    mdd = (t["answer_mdd"].format(mdd=k["min_detectable_diff"]) if k["min_detectable_diff"] is not None
           else t["answer_mdd_none"])
    needed = (t["answer_needed"].format(n=k["questions_needed"]) if k["questions_needed"] is not None
              else t["answer_needed_over"].format(max_n=p["max_n"]) if p["needed_over_max"]
              else t["answer_needed_none"])
    return t["answer"].format(a=c["a"], b=c["b"], group=c["group"], n=c["N"], k=c["k"], verdict=verdict_text(c, t),
                              diff=c["diff"], lo=c["ci"][0], hi=c["ci"][1], mdd=mdd, needed=needed)


def answer_sentences(pairs: dict, t: dict) -> list[str]:
    """Every primary comparison's answer sentence; a run without a primary says it gives no verdict."""
    primaries = [c for c in pairs["comparisons"] if c["role"] == "primary"]
    return [answer_sentence(c, t) for c in primaries] or [t["no_primary"]]


def verdict_text(c: dict, t: dict) -> str:
    """The verdict in words; equivalence names its margin."""
    if c["verdict"] == "equivalent":
        return t["equivalent"].format(margin=c["equivalence"]["margin"])
    return t[c["verdict"]]


def tost_text(e: dict, t: dict) -> str:
    """The failure comparison's equivalence test in one line."""
    return t["tost"].format(margin=e["margin"], alpha=e["alpha"], p_lower=e["p_lower"], p_upper=e["p_upper"],
                            level=e["ci_tost_level"], lo=e["ci_tost"][0], hi=e["ci_tost"][1],
                            inside=t["tost_inside" if e["interval_inside"] else "tost_outside"],
                            said=t["tost_yes" if e["equivalent"] else "tost_no"])


def primary_title(i: int, c: dict, t: dict) -> str:
    return (f"{t['primary'].format(i=i)}: {c['a']} vs {c['b']}, {c['group']} "
            f"{t['questions_n'].format(n=c['N'])}, {t['fail_rate_at'].format(k=c['k'])}")


def flip_rows(c: dict, t: dict) -> tuple[list[str], list[list[str]]]:
    return ([t["qid"], t["question"], t["gold_chunk"], f"{t['rank']} {c['a']}", f"{t['rank']} {c['b']}"],
            [[f["qid"], f["question"], f["gold"], _rank(f["rank_a"], c["depth_a"], t),
              _rank(f["rank_b"], c["depth_b"], t)] for f in c["flipped"]])


def secondary_rows(comparisons: list[dict], t: dict) -> tuple[list[str], list[list[str]]]:
    """The secondary family; its adjusted p is Holm's (holm_p) or, with pairs.secondary_correction bh, BH's (bh_p)."""
    bh = bool(comparisons) and "bh_p" in comparisons[0]
    return (["A", "B", t["group"], "k", "N", "fail A", "fail B", "only A", "only B", t["diff"],
             t["interval_short"], "p", t["bh" if bh else "holm"]],
            [[c["a"], c["b"], c["group"], str(c["k"]), str(c["N"]), str(c["fail_a"]), str(c["fail_b"]),
              str(c["only_a"]), str(c["only_b"]), f"{c['diff']:+.3f}", f"[{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}]",
              f"{c['sign_p']:.3f}", f"{c['bh_p' if bh else 'holm_p']:.3f}"] for c in comparisons])


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
    """One row per test; with an equivalence margin, the randomization TOST's p and what it says."""
    tost = any("equivalence" in c for c in tests)

    def equivalence(c):
        e = c.get("equivalence")
        return ["-"] if e is None else [f"{e['p']:.3f} (±{e['margin']:g}): "
                                        + t["tost_yes" if e["equivalent"] else "tost_no"]]
    return (["A", "B", t["group"], t["measure"], "N", t["mean_of"].format(side="A"), t["mean_of"].format(side="B"),
             "B - A", t["interval_short"], t["nonzero"], "p", t["holm"], t["role"]]
            + ([t["equivalence_column"]] if tost else []),
            [[c["a"], c["b"], c["group"], label(parse(c["measure"])), str(c["N"]), f"{c['mean_a']:.3f}",
              f"{c['mean_b']:.3f}", f"{c['diff']:+.3f}", f"[{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}]",
              str(c["nonzero"]), randomization_p(c),
              f"{c['holm_p']:.3f}", t[f"role_{c['role']}"]] + (equivalence(c) if tost else []) for c in tests])


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


def _verdict_cell(v: dict, t: dict) -> str:
    return f"{verdict_text(v, t)} ({v['diff']:+.3f}, [{v['ci'][0]:+.3f}, {v['ci'][1]:+.3f}], N {v['N']})"


def other_side(a: dict) -> str:
    """The origin of the group an agreement entry sets beside the human one: generated or judged."""
    return "judged" if "judged" in a else "generated"


def tau_line(a: dict, t: dict) -> str:
    """Kendall's tau-b of one human and one generated or judged group, or why it is not given."""
    other = other_side(a)
    words = {"human": a["human"], "generated": a[other], "measure": a["measure"], "n": a["conditions"]}
    if a["why"] == "pair":
        return t["agreement_pair"].format(**words)
    if a["why"] == "ties":
        side = next(g for g in ("human", other) if len(set(a["failure"][g].values())) < 2)
        return t["agreement_ties"].format(side=a[side], **words)
    if a["anchor"] is None:
        return t["agreement_tau_judged"].format(tau=a["tau"], p=a["p"], **words)
    return t["agreement_tau"].format(tau=a["tau"], p=a["p"], anchor=a["anchor"], **words)


def agreement_lines(agreement: list[dict], t: dict) -> list[str]:
    """Per human and generated or judged group: each primary's verdict on both, and the tau line."""
    return [line for a in agreement for line in (
        *(t["agreement_verdicts"].format(a=v["a"], b=v["b"], human=a["human"], generated=a[other_side(a)],
                                         on_human=_verdict_cell(v["human"], t),
                                         on_generated=_verdict_cell(v[other_side(a)], t)) for v in a["verdicts"]),
        tau_line(a, t))]


def agreement_sections(agreement: list[dict]) -> list[tuple[str, list[dict]]]:
    """(title's wording key, entries): the generated groups' section, then the judged groups'."""
    return [(key, entries) for key, side in (("agreement_title", "generated"), ("agreement_title_judged", "judged"))
            if (entries := [a for a in agreement if other_side(a) == side])]


def agreement_markdown(agreement: list[dict], t: dict) -> list[str]:
    """The sections of pairs.md setting generated, then judged, and human groups side by side."""
    lines = []
    for title, entries in agreement_sections(agreement):
        lines += ["", f"## {t[title]}", "", t[title.replace("title", "note")]]
        for a in entries:
            h, g, other = a["human"], a[other_side(a)], other_side(a)
            lines += ["", f"### {h} / {g} ({a['measure']})", "",
                      markdown_table([t["agreement_primary"], t["agreement_on"].format(group=h),
                                      t["agreement_on"].format(group=g)],
                                     [[f"{v['a']} vs {v['b']}", _verdict_cell(v["human"], t),
                                       _verdict_cell(v[other], t)] for v in a["verdicts"]]), "",
                      markdown_table([t["agreement_condition"], f"{a['measure']} {h}", f"{a['measure']} {g}"],
                                     [[c, f"{a['failure']['human'][c]:.3f}", f"{a['failure'][other][c]:.3f}"]
                                      for c in a["failure"]["human"]]), "", tau_line(a, t)]
    return lines


def pairs_markdown(rule: dict, files: list[dict], primaries: list[dict], secondaries: list[dict], kept: dict,
                   t: dict, about: dict, title: str, warnings: list[dict] = (), continuous: dict | None = None,
                   agreement: list[dict] = ()) -> str:
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
    if agreement:
        lines += agreement_markdown(agreement, t)
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
            [[t[f"plan_{name}"].format(deff=p.get("design", {}).get("deff", 1.0)),
              "-" if p[name]["min_detectable_diff"] is None else f"{p[name]['min_detectable_diff']:.3f}",
              *(_needed_cell(p[name]["needed"][d], p) for d in diffs)]
             for name in ("interval", "sign", "interval_clustered") if name in p])


def plan_sentence(p: dict, t: dict) -> str:
    """The plain sentence of a planned primary, by the verdict's interval (with the clusters when the
    pilot gave a design effect): what its questions can see, what more would."""
    planned = p.get("interval_clustered", p["interval"])
    mdd = planned["min_detectable_diff"]
    head = (t["plan_mdd"].format(n=p["N"], mdd=mdd, power=p["power"]) if mdd is not None
            else t["plan_mdd_none"].format(n=p["N"], power=p["power"]))
    needed = "; ".join(_questions_for(d, n, p, t) for d, n in planned["needed"].items())
    return f"{head}; {t['plan_reference']}. {needed[:1].upper()}{needed[1:]}. {t['plan_assumes']}"


def unplanned_sentence(p: dict, t: dict) -> str:
    """Why a primary has no power estimate: its planning pair needs a condition the run does not
    compute, or both its sides are paid and one free condition stands in for both (no free pilot)."""
    if "missing" in p:
        return t["plan_missing"].format(c=p["missing"])
    return t["plan_no_pilot"].format(a=p["a"], b=p["b"], c=p["no_pilot"])


def _generation_cell(g: dict | None) -> str:
    """What generating a measure's questions costs, online / by a batch API."""
    if g is None:
        return "-"
    return f"${g['online_usd']:,.2f} / " + ("-" if g["batch_usd"] is None else f"${g['batch_usd']:,.2f}")


def effect_lines(prereg: dict, t: dict) -> list[str]:
    """The questions each candidate measure needs for the smallest effect, and what generating them costs."""
    e, plan = prereg["smallest_effect"], prereg["plan"]
    lines = [f"## {t['effect_title'].format(effect=plan['smallest_effect'])}", ""]
    if e is None:
        return [*lines, t["effect_no_pilot"]]
    p = e["pilot"]
    priced = any(m.get("generation") for m in e["measures"].values())
    rows = [[name, t["effect_sign"].format(psi=m["discordance"]) if m["test"] == "sign" else
             t["effect_randomization"].format(**m), f"{m['needed']:,}" if m["needed"] else t["effect_none"],
             *([_generation_cell(m.get("generation"))] if priced else [])]
            for name, m in e["measures"].items()]
    lines += [t["effect_pilot"].format(a=p["a"], b=p["b"], group=p["group"], n=p["N"], alpha=plan["alpha"],
                                       power=plan["power"]), "",
              markdown_table([t["effect_measure"], t["effect_test"], t["effect_needed"],
                              *([t["effect_generating"]] if priced else [])], rows), ""]
    g = e["generation"]
    if g is None:
        return [*lines, t["effect_unpriced"]] if e["most"] else lines
    batch = t["effect_cost_batch"].format(batch=g["batch_usd"]) if g["batch_usd"] is not None else ""
    hours = g["questions"] * plan["seconds_per_call"] / 3600   # questions_generate asks one call at a time
    return [*lines, t["effect_cost"].format(n=g["questions"], model=g["model"], tokens=g["input_tokens_per_call"],
                                            out=g["output_tokens_per_call"], online=g["online_usd"], batch=batch,
                                            time=duration(hours, t), seconds=plan["seconds_per_call"])]


def duration(hours: float, t: dict) -> str:
    """Hours in the unit a reader plans with: minutes under an hour, days from two days."""
    minutes, h, days = t["time_units"]
    return minutes.format(hours * 60) if hours < 1 else h.format(hours) if hours < 48 else days.format(hours / 24)


def embed_time_lines(slots: dict, t: dict) -> list[str]:
    """Each model slot's expected embedding time (embed-time.json), or that no speed is measured yet."""
    return [t["free_time"].format(slot=slot, rate=s["texts_per_s"], time=duration(s["hours"], t),
                                  time_cores=duration(s["hours_cores"], t), **s) if s["texts_per_s"]
            else t["free_time_none"].format(slot=slot, **s) for slot, s in slots.items()]


def cost_lines(prereg: dict, t: dict) -> list[str]:
    """What each paid variant will cost (named when there are several) and all of them take, or
    why there is no estimate; the free stages' embedding time."""
    estimates, plan = prereg["estimates"], prereg["plan"]
    duration = t["plan_duration"].format(hours=prereg["duration_hours"], workers=plan["workers"],
                                         seconds=plan["seconds_per_call"])
    free = embed_time_lines(prereg["embed_time"], t)
    if not estimates:
        return [t["plan_no_estimate"], duration, *free]
    lines = []
    for variant, e in estimates.items():
        cost = t["plan_cost"].format(backend=e["backend"], model=e["model"], calls=e["calls"], dollars=e["cost_usd"],
                                     tokens=e["input_tokens_total"], output=e["usage"]["output_tokens"],
                                     version=e["prices_version"])
        if e.get("batch_cost_usd") is not None:   # estimates written before the batch prices have none
            cost += t["plan_cost_batch"].format(online=e["online_cost_usd"], batch=e["batch_cost_usd"],
                                                paid=t[f"plan_pays_{e['pays']}"])
        lines.append(f"{variant}: {cost}" if len(estimates) > 1 else cost)
    return [*lines, duration, *free]


def preregistration_markdown(prereg: dict, t: dict) -> str:
    """preregistration.md: what is committed to, what the paid variants will cost, what the questions can detect."""
    plan, corpus = prereg["plan"], prereg["corpus"]
    r = rule_texts(plan, prereg["secondary_family"], t)
    lines = [f"# {t['prereg_title']}", "", t["prereg_note"].format(written=prereg["written"]), "",
             f"## {t['prereg_committed']}", "", f"{t['primary_list']}:",
             *primary_list(r, t), ""]
    if r["fallback"]:
        lines += [r["fallback"], ""]
    lines += [r["rule"], "", r["secondary"], "",
              t["prereg_power_setting"].format(alpha=plan["alpha"], power=plan["power"]), "",
              *([t["prereg_equivalence"].format(alpha=plan["alpha"], margins=", ".join(
                  f"{k} ±{v:g}" for k, v in plan["equivalence_margin"].items())), ""]
                if plan.get("equivalence_margin") else []),
              t["prereg_corpus"].format(files=len(corpus["files"]), **{k: corpus[k] for k in
                                        ("format", "path", "sha256", "documents", "chunks")}), "",
              t["prereg_questions"].format(n=len(prereg["questions"])), "",
              markdown_table(*file_rows(prereg["question_files"], t)), "",
              f"## {t['prereg_cost_title']}", "", *(f"- {x}" for x in cost_lines(prereg, t)), "",
              *effect_lines(prereg, t), "",
              f"## {t['prereg_power_title']}"]
    for i, p in enumerate(prereg["primaries"], 1):
        lines += ["", f"### {t['primary'].format(i=i)}: {p['a']} vs {p['b']}, {p['group']} "
                      f"{t['questions_n'].format(n=p['N'])}, {t['fail_rate_at'].format(k=p['k'])}", ""]
        if p["planning"] is None:
            lines.append(f"**{unplanned_sentence(p, t)}**")
            continue
        pa, pb = p["planning"]["a"], p["planning"]["b"]
        lines += [f"- {t['plan_pair'].format(a=pa, b=pb, d=p['discordant'], n=p['N'], psi=p['discordance'])}",
                  f"- {t['plan_observed'].format(a=pa, b=pb, diff=p['observed_diff'])}",
                  f"- {t['plan_floor']}"]
        if "design" in p:
            d = p["design"]
            lines.append(f"- {t['plan_clustered'].format(deff=d['deff'], size=d['mean_size'], icc=d['icc'])}")
        if "equivalence" in p:
            e = p["equivalence"]
            cell = lambda n: f"{n:,}" if n is not None else f"> {p['max_n']:,}"  # noqa: E731
            lines.append(f"- {t['plan_equivalence'].format(margin=e['margin'], psi=p['discordance'], power=p['power'], n=cell(e['needed']), nc=cell(e['needed_clustered']))}")
        lines += ["", markdown_table(*plan_rows(p, t)), "", f"**{plan_sentence(p, t)}**"]
    return "\n".join(lines) + "\n"


def kept_lines(kept: dict, t: dict) -> list[str]:
    """The run against its preregistration: kept, or each departure named."""
    if kept["kept"]:
        return [t["kept_yes"].format(written=kept["preregistered"])]
    lines = [t["kept_no"].format(written=kept["preregistered"])]
    if kept.get("after_paid"):
        lines.append(t["kept_after_paid"].format(paid=kept["after_paid"][:19]))
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


class Shortened(NamedTuple):
    """A cell shown shortened in HTML, its whole value in the cell's title (on hover); whole in Markdown."""
    value: str
    shown: int = 12

    def __str__(self) -> str:
        return self.value


class Linked(NamedTuple):
    """A cell that links to `href` in HTML; its value alone in Markdown."""
    value: str
    href: str

    def __str__(self) -> str:
        return self.value


def _td(c) -> str:
    if isinstance(c, Linked):
        return f'<td><a href="{escape(c.href)}">{escape(c.value)}</a></td>'
    if isinstance(c, Shortened) and len(c.value) > c.shown:
        return f'<td title="{escape(c.value)}"><code>{escape(c.value[:c.shown])}…</code></td>'
    return f"<td>{escape(str(c))}</td>"


def markdown_table(head: list[str], rows: list[list[str]]) -> str:
    def line(row):
        return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in row) + " |"
    return "\n".join([line(head), "|" + "---|" * len(head), *map(line, rows)])


def html_table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{escape(str(h))}</th>" for h in head)
    body = "".join("<tr>" + "".join(map(_td, row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"
