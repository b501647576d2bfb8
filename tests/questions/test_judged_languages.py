"""A judged set on a German corpus through the real workflow (BM25 only), the fake claude grading
each pooled pair: the judge is asked in German, the corpus language's own prompt (the fake's log
holds what was sent), a language without its own gets English's naming it; and the judged group
is set beside the human one as a generated group is: each primary's rule applied to it beside its
verdict on the human group, every condition's failure@k on both and Kendall's tau-b between the
two orderings (pairs.json, pairs.md, the summary page)."""
import json
from html import escape
from types import SimpleNamespace

import pytest
import yaml
from scipy.stats import kendalltau
from conftest import FAKE_CLAUDE
from workflow import ROOT, claude_env, snakemake

from ctxret.fileio import read_json
from ctxret.stages.judge import prompt_for

LLM = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE), "model": "opus", "effort": "high"}
K = 1   # the primary's k: at 5 a corpus this small fails nowhere
DOCS = ROOT / "tests" / "data" / "german" / "docs"   # shared with test_generated_languages
HUMAN = [("Wie groß sollte der Pool sein?", "geteilt durch die Zahl der Instanzen"),
         ("Was passiert mit einer ruhenden Verbindung?", "wird geschlossen und neu geöffnet"),
         ("Welche Anfragen darf man wiederholen?", "Wiederholen Sie nur idempotente Anfragen"),
         ("Wie wächst die Wartezeit zwischen den Versuchen?", "wächst die Wartezeit exponentiell"),
         ("Wann gibt der Client auf?", "Nach fünf Versuchen gibt der Client auf"),
         ("Was hält der Zwischenspeicher?", "hält berechnete Ergebnisse"),
         ("Was bewirkt eine kurze Lebensdauer?", "verringert veraltete Antworten"),
         ("Warum werden die Ablaufzeiten gestreut?", "damit nicht alle Schlüssel gleichzeitig ablaufen")]
QUERIES = ["Verbindungen zur Datenbank offen halten", "doppelt angelegte Bestellung vermeiden",
           "Trefferquote des Zwischenspeichers", "Fehler an den Aufrufer melden"]


def lines(rows) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("judged-de")
    (tmp / "human.jsonl").write_text(lines({"id": f"h{i}", "question": q, "gold_passage": p}
                                           for i, (q, p) in enumerate(HUMAN, 1)), encoding="utf-8")
    (tmp / "queries.jsonl").write_text(lines({"id": f"q{i}", "question": q} for i, q in enumerate(QUERIES, 1)),
                                       encoding="utf-8")
    config = tmp / "config.yaml"
    config.write_text(yaml.safe_dump({
        "results": str(tmp / "results"), "store": str(tmp / "store"),
        "corpus": {"format": "files", "path": str(DOCS)}, "chunking": {"paragraph": {"max_chars": 100}},
        "models": {}, "contexts": {"llm": LLM}, "score": {"ks": [1, 5]},
        "pairs": {"resamples": 1000, "primary": [{"a": "bm25:T1", "b": "bm25:A1", "k": K}]},
        "questions": {"sets": {"H": str(tmp / "human.jsonl"),
                               "Q": {"format": "jsonl", "path": str(tmp / "queries.jsonl"), "judge": {"depth": 3}}},
                      "groups": {"H": ["H"], "Q": ["Q"]}}}, allow_unicode=True), encoding="utf-8")
    out = SimpleNamespace(tmp=tmp, results=tmp / "results", proc=snakemake(config, env=claude_env(tmp)))
    out.calls = [json.loads(line) for line in (tmp / "claude-calls.jsonl").read_text(encoding="utf-8").splitlines()]
    return out


def test_a_judged_set_on_a_german_corpus_is_judged_in_german(run):
    german = yaml.safe_load((ROOT / "config" / "judge-prompt.yaml").read_text(encoding="utf-8"))["de"]
    judging = [c for c in run.calls if "<query>" in c["stdin"]]
    record = read_json(run.results / "questions" / "judged-Q.json")
    assert record["prompt"]["language"] == "de" and len(judging) == record["paid_calls"] == record["pairs"] > 0
    assert all(c["system"] == german["system"] for c in judging)
    assert all("Ein Abschnitt des Dokuments" in c["stdin"] and "Die Bewertung (0-3):" in c["stdin"] for c in judging)
    print(judging[0]["stdin"][:300])


@pytest.mark.parametrize("code, own", [("ja", "チャンク"), ("zh", "文本块"), ("fr", "extrait"), ("es", "fragmento"),
                                       ("ko", "청크")])
def test_each_language_with_its_own_prompt_is_asked_in_it(code, own):
    prompt = prompt_for(str(ROOT / "config" / "judge-prompt.yaml"), code)
    assert own in prompt["system"] and "{language}" not in prompt["system"]
    assert all(f"<{tag}>" in prompt["user"] for tag in ("query", "chunk"))


def test_a_language_without_its_own_prompt_gets_englishs_naming_it():
    assert "the query and the chunk are in Dutch" in prompt_for(str(ROOT / "config" / "judge-prompt.yaml"), "nl")["system"]
    assert "the query and the chunk are in English" in prompt_for(str(ROOT / "config" / "judge-prompt.yaml"),
                                                                  "en")["system"]


def test_the_judged_group_is_set_beside_the_human_one(run):
    pairs = read_json(run.results / "pairs.json")
    primaries = [c for c in pairs["comparisons"] if c["role"] == "primary"]
    assert primaries and all(c["group"] == "H" for c in primaries)
    assert not any(c["group"] == "Q" for c in pairs["comparisons"])   # never part of a verdict
    [agreement] = pairs["agreement"]
    assert (agreement["human"], agreement["judged"], agreement["measure"]) == ("H", "Q", f"failure@{K}")
    assert "generated" not in agreement and agreement["anchor"] is None
    scored = read_json(run.results / "score.json")["groups"]["Q"]
    assert len(agreement["failure"]["judged"]) == agreement["conditions"] >= 3
    for v, p in zip(agreement["verdicts"], primaries, strict=True):
        assert (v["a"], v["b"], v["human"]["verdict"]) == (p["a"], p["b"], p["verdict"])
        assert v["judged"]["N"] == len(scored) and v["judged"]["verdict"] in ("holds", "undecided", "reversed")
    score = read_json(run.results / "score.json")
    for c, rate in agreement["failure"]["judged"].items():   # the judged side's figures are score.json's
        s = next(r["summary"] for r in score["results"] if r["condition"] == c and r["group"] == "Q")
        assert rate == pytest.approx(s[f"fail@{K}"]["rate"])
    md = (run.results / "pairs.md").read_text(encoding="utf-8")   # English: the report language of German
    assert "## Judged and human questions side by side" in md and f"### H / Q (failure@{K})" in md
    page = (run.results / "report" / "summary.html").read_text(encoding="utf-8")
    assert "<h3>Judged and human questions side by side</h3>" in page
    assert f"{primaries[0]['a']} vs {primaries[0]['b']}: on H " in page
    human, judged = (agreement["failure"][side] for side in ("human", "judged"))
    expected = kendalltau([human[c] for c in sorted(human)], [judged[c] for c in sorted(human)], variant="b")
    assert agreement["tau"] == pytest.approx(expected.statistic) and agreement["p"] == pytest.approx(expected.pvalue)
    line = (f"Kendall's τ-b between the orderings of the {agreement['conditions']} conditions by failure@{K} on H and "
            f"on Q: {agreement['tau']:.2f} (p {agreement['p']:.3f}).")
    assert line in md and escape(line) in page and "TREC DL 2023" not in md
    print(line)
