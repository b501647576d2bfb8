"""summary: one self-contained HTML page (the rule, verdicts, plots, score, flips, ledger, tokens).

The page is registered with Snakemake's `report()`, so `snakemake --report results/report.html`
carries it, with the plots, into one offline file.
"""
import base64
from html import escape
from pathlib import Path
from urllib.parse import urlencode

from ctxret.evaluation.metrics import reported
from ctxret.fileio import read_json, write_text
from ctxret.presentation.pages import (agreement_lines, agreement_sections, continuous_note, continuous_rows,
                                       corpus_line, detail_rows, file_rows, flip_rows, headline_rows, kept_lines,
                                       primary_texts, primary_title, rule_texts, secondary_rows, warning_lines)
from ctxret.presentation.pages import Linked, html_table, verdict_text
from ctxret.presentation.wording import wording
from ctxret.runtime.stage_runner import run_rule

EXPLORER = "explorer.html"  # next to the page, results/report/
STYLE = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;line-height:1.45}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:90%}td,th{border:1px solid #ccc;padding:2px 6px}
td{overflow-wrap:anywhere}th{background:#f3f3f3}.verdict{font-weight:bold}img{max-width:100%}
.answer{font-size:115%;border-left:4px solid #333;padding:.3em .8em}"""


def img(path: str) -> str:
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return f'<img alt="{escape(Path(path).name)}" src="data:image/png;base64,{data}">'


def _value(v, labels: dict | None = None) -> str:
    """A ledger or token value as text; a mapping's keys by `labels` (the report language's words)."""
    labels = labels or {}
    if isinstance(v, dict):
        return ", ".join(f"{labels.get(k, k)}: {_value(x, labels)}" for k, x in v.items()) or "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return "-" if v is None else str(v)


def flip_table(c: dict, t: dict) -> str:
    """The flip list, each id a link to the question opened in the explorer on this comparison."""
    head, rows = flip_rows(c, t)
    where = urlencode({"a": c["a"], "b": c["b"], "group": c["group"], "k": c["k"], "filter": "flipped"})
    return html_table(head, [[Linked(row[0], f"{EXPLORER}#{where}&{urlencode({'q': row[0]})}"), *row[1:]]
                             for row in rows])


def ledger_rows(ledgers: dict[str, dict], t: dict) -> tuple[list[str], list[list[str]]]:
    """One row per ledger field (in the report language), one column per context variant."""
    keys, labels = list(dict.fromkeys(k for s in ledgers.values() for k in s)), t["ledger_labels"]
    return [""] + list(ledgers), [[labels.get(k, k), *(_value(s.get(k), labels) for s in ledgers.values())]
                                  for k in keys]


def _prefix(value, t: dict) -> str:
    """A prefix as written, quoted; an empty one says so (given on purpose, or the model's own)."""
    return "-" if value is None else f'"" ({t["prefix_none"]})' if value == "" else f'"{value}"'


def token_rows(tokens: dict, t: dict) -> tuple[list[str], list[list[str]]]:
    """results/tokens.json: {variant: {model: {mean, max, over_limit, limit, count, ...}}}."""
    rows = [[v, m, _value(s.get("mean")), _value(s.get("max")), _value(s.get("over_limit")),
             _value(s.get("limit")), _value(s.get("count")),
             t["ledger_labels"].get(s.get("long_texts"), _value(s.get("long_texts"))),
             _prefix(s.get("query_prefix"), t), _prefix(s.get("passage_prefix"), t)]
            for v, models in tokens.items() for m, s in models.items()]
    return t["token_head"], rows


def precision_line(precision: dict, t: dict) -> str:
    """results/precision.json as one line: `Embedding precision ...: e5 fp32 (auto on this machine)`."""
    slots = [f"{slot} {r['precision']} ({t['precision_how'][r['how']]})" for slot, r in precision.items()]
    return f"{t['precision']}: {', '.join(slots)}"


def page(score: dict, pairs: dict, plots: list[str], ledgers: dict[str, dict], tokens: dict, precision: dict,
         language: str) -> str:
    t = wording(language)
    primaries = [c for c in pairs["comparisons"] if c["role"] == "primary"]
    secondaries = [c for c in pairs["comparisons"] if c["role"] == "secondary"]
    r = rule_texts(pairs["rule"], len(secondaries), t)
    h = [f"<h1>{escape(pairs['title'])}</h1>",
         f'<p class="answer">{escape(" ".join(pairs["answers"]))}</p>',
         f"<p>{escape(corpus_line(pairs['corpus'], t))}</p>",
         f'<p><a href="{EXPLORER}">{escape(t["ex_link"])}</a></p>']
    if pairs["warnings"]:
        h += [f"<h2>{escape(t['warnings_title'])}</h2>",
              "<ul>" + "".join(f"<li>{escape(x)}</li>" for x in warning_lines(pairs["warnings"], t)) + "</ul>"]
    h += [f"<h2>{escape(t['kept_title'])}</h2>",
          "<ul>" + "".join(f"<li>{escape(x)}</li>" for x in kept_lines(pairs["kept_to_plan"], t)) + "</ul>",
          f"<h2>{escape(t['rule_title'])}</h2>",
          f"<p>{escape(t['primary_list'])}:</p><ol>" + "".join(f"<li>{escape(x)}</li>" for x in r["primary"]) + "</ol>"]
    if r["fallback"]:
        h.append(f"<p><strong>{escape(r['fallback'])}</strong></p>")
    h += [f"<p>{escape(r['rule'])}</p>", f"<p>{escape(r['secondary'])}</p>",
          f"<h2>{escape(t['files_title'])}</h2>", f"<p>{escape(t['files_note'])}</p>",
          html_table(*file_rows(pairs["question_files"], t)),
          f"<h2>{escape(t['verdicts_title'])}</h2>"]
    for i, c in enumerate(primaries, 1):
        h += [f"<h3>{escape(primary_title(i, c, t))}</h3>",
              f'<p class="verdict">{escape(t["verdict"])}: {escape(verdict_text(c, t))}</p>',
              "<ul>" + "".join(f"<li>{escape(x)}</li>" for x in primary_texts(c, t, verdict_line=False)) + "</ul>"]
    for title, entries in agreement_sections(pairs.get("agreement", [])):
        h += [f"<h3>{escape(t[title])}</h3>",
              "<ul>" + "".join(f"<li>{escape(x)}</li>" for x in agreement_lines(entries, t)) + "</ul>"]
    h += [f"<h2>{escape(t['plots_title'])}</h2>", *(f"<p>{img(p)}</p>" for p in plots),
          f"<h2>{escape(t['score_title'])}</h2>", f"<p>{escape(t['score_note'])}</p>",
          html_table(*headline_rows(score["results"], score["headline_groups"], score["main_group"],
                                    reported(score), t))]
    for i, c in enumerate(primaries, 1):
        h.append(f"<h2>{escape(t['flips'].format(n=len(c['flipped'])))}: {escape(c['a'])} vs {escape(c['b'])}</h2>")
        h.append(flip_table(c, t) if c["flipped"] else f"<p>{escape(t['no_flips'])}</p>")
    if secondaries:
        h += [f"<h2>{escape(t['secondary_title'])}</h2>", f"<p>{escape(t['none_promoted'])}</p>",
              html_table(*secondary_rows(secondaries, t))]
    continuous = pairs.get("continuous")
    if continuous and continuous["tests"]:
        h += [f"<h2>{escape(t['continuous_title'])}</h2>", f"<p>{escape(continuous_note(continuous, t))}</p>",
              html_table(*continuous_rows(continuous["tests"], t))]
    h += [f"<h2>{escape(t['ledger_title'])}</h2>", html_table(*ledger_rows(ledgers, t)) if ledgers else "<p>-</p>",
          f"<h2>{escape(t['tokens_title'])}</h2>",
          *([f"<p>{escape(precision_line(precision, t))}</p>"] if precision else []),
          html_table(*token_rows(tokens, t)),
          f"<h2>{escape(t['score_detail'])}</h2>",
          html_table(*detail_rows(score["results"], reported(score), t))]
    return (f'<!doctype html>\n<html lang="{language}"><head><meta charset="utf-8">'
            f"<title>{escape(pairs['title'])}</title><style>{STYLE}</style></head><body>\n"
            + "\n".join(h) + "\n</body></html>\n")


def summary(input, output, params, **_) -> None:
    ledgers = {v: read_json(p) for v, p in zip(params.ledger_variants, input.ledgers, strict=True)}
    tokens = read_json(input.tokens)
    html = page(read_json(input.score), read_json(input.pairs), [input.failure, input.pairs_plot],
                ledgers, tokens, read_json(input.precision), params.language)
    write_text(output.html, html)
    print(f"{output.html}: {len(html):,} characters; ledgers {list(ledgers)}")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
