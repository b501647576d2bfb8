"""Generated question sets in the corpus language, through `make generate-questions`'s workflow
with the fake claude (which answers in German or Japanese when the prompt asks for it, else in
Korean, and in English one time in six): a German and a Japanese corpus get prompts in their
language, their questions are kept by the language filter, and the English ones are dropped
and counted as wrong language. The German corpus's 9 chunks give 27 (chunk, kind) pairs, too few
for 24 questions kept at the fake's rate: later takes of a pair ask for another question, naming
the earlier ones."""
import json
import re

import pytest
import yaml
from conftest import FAKE_CLAUDE
from workflow import ROOT, claude_env, snakemake

from ctxret.fileio import read_json, read_jsonl

LLM = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE), "model": "opus", "effort": "high"}
N = 24
GERMAN = ROOT / "tests" / "data" / "german" / "docs"


def generate(tmp, corpus, language):
    config = tmp / "config.yaml"
    config.write_text(yaml.safe_dump({
        "results": str(tmp / "results"), "store": str(tmp / "store"),
        "corpus": {"format": "files", "path": str(corpus)}, "chunking": {"paragraph": {"max_chars": 100}},
        "questions": {"sets": {"Gen": {"generate": {"n": N, "seed": 0}}}, "groups": {"Gen": ["Gen"]}},
        "contexts": {"llm": LLM}}, allow_unicode=True), encoding="utf-8")
    snakemake(config, "generate_questions", env={**claude_env(tmp), "CTXRET_GENERATE_QUESTIONS": "1"})
    results = tmp / "results"
    calls = [json.loads(line) for line in (tmp / "claude-calls.jsonl").read_text(encoding="utf-8").splitlines()]
    return {"asked": language, "prompts": [c["stdin"] for c in calls],
            "record": read_json(results / "questions" / "generated-Gen.json"),
            "questions": read_jsonl(results / "questions" / "generated-Gen.jsonl"),
            "log": (results / "logs" / "questions_generate-Gen.log").read_text(encoding="utf-8")}


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    return generate(tmp_path_factory.mktemp("german"), GERMAN, "auf Deutsch")


@pytest.fixture(scope="module")
def japanese(tmp_path_factory):
    return generate(tmp_path_factory.mktemp("japanese"), ROOT / "tests" / "data" / "japanese" / "docs", "日本語で")


@pytest.mark.parametrize("run, code", [("german", "de"), ("japanese", "ja")])
def test_the_prompt_asks_for_questions_in_the_corpus_language(run, code, request):
    run = request.getfixturevalue(run)
    assert run["record"]["language"] == code   # corpus.language: auto, found in the documents
    assert len(run["prompts"]) == run["record"]["asked"] >= N and all(run["asked"] in p for p in run["prompts"])


@pytest.mark.parametrize("run, code", [("german", "de"), ("japanese", "ja")])
def test_questions_in_the_corpus_language_are_kept_and_english_ones_dropped_and_counted(run, code, request):
    run = request.getfixturevalue(run)
    questions, record = run["questions"], run["record"]
    assert record["kept"] == len(questions) >= 4
    assert not any(q["question"].startswith("What does the text") for q in questions)
    if code == "ja":
        assert all(re.search("[\u3041-\u309f]", q["question"]) for q in questions)
    else:
        assert sum(re.search("Text|Vorgehen|bedeutet", q["question"]) is not None for q in questions) >= 4
    wrong = record["dropped"]["wrong language"]
    assert wrong > 0 and f"dropped, wrong language: {wrong}" in run["log"]


def test_a_later_take_asks_for_a_question_other_than_the_earlier_ones(german):
    record, prompts = german["record"], german["prompts"]   # one call per question, in sample order
    sample = record["sample"]
    assert record["stopped"] == "target reached" and record["kept"] == N
    assert [r["take"] for r in record["rounds"]] == [1, 1, 2, 3, 4, 4, 5]   # a round ends with its take
    assert "at most 5 of 5 takes of a (chunk, kind)" in german["log"]
    assert "round 3 (take 2): asked 27" in german["log"]
    # a kept question of take 2: its prompt is take 1's and the again line, naming take 1's question
    question = next(q for q in german["questions"] if sample[int(q["id"].rsplit("-", 1)[1])][2] == 2)
    at = int(question["id"].rsplit("-", 1)[1])
    first = sample.index([*sample[at][:2], 1])
    assert "<earlier>" not in prompts[first] and prompts[at].startswith(prompts[first])
    earlier = re.search(r"<earlier>(.*?)</earlier>", prompts[at], re.S)[1]
    assert "Zu diesem Abschnitt schon geschriebene Fragen" in prompts[at]
    assert earlier and "\n" not in earlier and earlier != question["question"]
