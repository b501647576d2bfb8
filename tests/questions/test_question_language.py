"""Questions in another language than the corpus: the set's language is found as a corpus's is,
recorded in question-sets.json, and a set unlike the corpus is one warning line (BM25 still
analyses its questions with the corpus's analyser)."""
import json

from workflow import ROOT

from ctxret.presentation.pages import log_warnings
from ctxret.stages.questions import set_records

ENGLISH = ["How large should a connection pool be?", "Which requests may be retried safely?"]
KOREAN = ["커넥션 풀은 얼마나 커야 하나?", "어떤 요청을 다시 보내도 되나?"]


def records(sets: dict[str, list[str]], corpus_language: str) -> dict:
    questions = [{"set": name, "question": q} for name, texts in sets.items() for q in texts]
    specs = {name: {"format": "jsonl", "path": f"{name}.jsonl", "sample": 0} for name in sets}
    return set_records(specs, {"format": "files", "path": "docs", "language": corpus_language}, questions,
                       {name: [] for name in sets})


def test_a_set_in_another_language_than_the_corpus_is_a_warning_line(capsys):
    found = records({"E": ENGLISH, "K": KOREAN}, "ko")
    assert (found["E"]["language"], found["K"]["language"]) == ("en", "ko")
    assert "warnings" not in found["K"]
    log_warnings(found["E"]["warnings"])
    assert capsys.readouterr().out.splitlines() == [
        "warning: question set E: its questions are in en (100% of them), the corpus in ko: BM25 analyses them "
        "with the corpus's analyser, so only words both languages share (names, identifiers) can match"]
    german = records({"G": ["Wie groß sollte ein Verbindungspool sein?", "Welche Anfragen darf man wiederholen?"]},
                     "en")
    assert german["G"]["warnings"][0]["language"] == "de"


def test_the_demo_questions_are_korean_like_their_corpus():
    """Korean questions full of Latin identifiers (`max.poll.interval.ms`를 ...) are still Korean."""
    for name in ("h", "p", "gap"):
        path = ROOT / "questions" / f"questions-{name}.jsonl"
        texts = [json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines()]
        found = records({name: texts}, "ko")[name]
        assert (found["language"], "warnings" in found) == ("ko", False), name
