"""Gold as people copy it: passages found after normalisation, a document named by its own id or by
the passage alone, and the line that names a passage not found, as the sets are read (the
workflow's parse: ctxret.questions.sets.read_question_sets) and as qcheck locates them."""
import json
from types import SimpleNamespace

import pytest
from conftest import question_sets, settings, write_lines

from ctxret.chunkers.corpus import chunk_corpus
from ctxret.importers import read_corpus
from ctxret.questions.sets import read_question_sets
from ctxret.stages import qcheck, questions

SETUP = ("# Setup\n\nThe installer is responsible for managing and\ndistributing the packages, with its distrib-\n"
         "uting mirror and a well-\nknown cache.\n\nIt says \u201cdone\u201d\u00a0when finished.\n")
POOLS = "# Pools\n\nA pool keeps database connections open between requests.\n"
ROLLBACK = "# Rollback\n\nA pool keeps database connections open between requests.\n"


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "docs"
    for rel, text in (("guides/setup.md", SETUP), ("pools.md", POOLS), ("ops/rollback.md", ROLLBACK)):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return settings(corpus={"format": "files", "path": str(folder)})["corpus"]


def read(tmp_path, corpus, rows):
    """The sets as the workflow's parse reads them: (questions, problem lines)."""
    path = write_lines(tmp_path / "q.jsonl", rows)
    found, _, problems = read_question_sets(question_sets({"Q": path}), corpus, str(tmp_path / "store"))
    return {q["id"]: q for q in found}, problems


def located(tmp_path, corpus, rows) -> dict:
    """gold.json's questions from the real questions and qcheck stages."""
    docs = read_corpus(corpus)
    write_lines(tmp_path / "docs.jsonl", docs)
    write_lines(tmp_path / "chunks.jsonl", chunk_corpus(docs, {"max_chars": 800}, "paragraph"))
    sets = question_sets({"Q": write_lines(tmp_path / "q.jsonl", rows)})
    questions.questions(input=None, params=SimpleNamespace(sets=sets, corpus=corpus, store=str(tmp_path / "store")),
                        output=SimpleNamespace(questions=str(tmp_path / "questions.jsonl"),
                                               sets=str(tmp_path / "question-sets.json")))
    qcheck.qcheck(input=SimpleNamespace(docs=str(tmp_path / "docs.jsonl"), chunks=str(tmp_path / "chunks.jsonl"),
                                        questions=str(tmp_path / "questions.jsonl")),
                  output=SimpleNamespace(gold=str(tmp_path / "gold.json")), params=SimpleNamespace(gap_sets=[],
                                                                                                 strict=True))
    return json.loads((tmp_path / "gold.json").read_text())["questions"]


@pytest.mark.parametrize("passage", [
    "managing and distributing the packages",            # one space where the text breaks the line
    "with its distributing mirror",                      # a word broken by a hyphen at the line's end
    "a well-known cache",                                # a hyphenated word at the line's end
    "It says \"done\" when finished.",                   # straight quotes, a space for the no-break one
    "managing  and\r\n distributing",                    # other whitespace
])
def test_a_passage_copied_across_line_breaks_hyphens_and_quotes_is_found(tmp_path, corpus, passage):
    rows = [{"id": "c1", "question": "?", "gold_doc": "guides/setup.md", "gold_passage": passage}]
    found, problems = read(tmp_path, corpus, rows)
    assert problems == [] and found["c1"]["gold_slug"] == "guides_setup.md"
    gold = located(tmp_path, corpus, rows)["c1"]
    assert gold["status"] == "ok" and len(gold["gold_chunks"]) == 1


def test_a_mis_copied_passage_names_its_document_and_where_it_departs(tmp_path, corpus):
    rows = [{"id": "c1", "question": "?", "gold_doc": "guides/setup.md",
             "gold_passage": "managing and distrbuting the packages"}]
    _, problems = read(tmp_path, corpus, rows)
    assert problems == [
        f"{tmp_path / 'q.jsonl'}:1: c1: passage missing: not in guides/setup.md, even with spaces, line breaks, "
        f"hyphens at line ends and quotes normalised; the document has \"…r managing and distr[i]buting the "
        f"packages,…\" where the passage has \"managing and distr[]buting the packages\""]


def test_a_passage_alone_finds_its_one_document_and_two_are_one_line(tmp_path, corpus):
    found, problems = read(tmp_path, corpus, [
        {"id": "a1", "question": "?", "gold_passage": "managing and distributing"},
        {"id": "a2", "question": "?", "gold_passage": "keeps database connections open"},
        {"id": "a3", "question": "?", "gold_passage": "nowhere to be read"}])
    assert found["a1"]["gold_slug"] == "guides_setup.md"
    where = tmp_path / "q.jsonl"
    assert problems[0] == (f"{where}:2: a2: passage in 2 documents (ops/rollback.md, pools.md): name its document "
                           f"in gold_doc")
    assert problems[1].startswith(f"{where}:3: a3: passage missing: in no document, even with spaces, line breaks, "
                                  f"hyphens at line ends and quotes normalised; the closest is ")
    assert len(problems) == 2


def test_gold_doc_takes_the_id_as_outputs_print_it_and_gold_slug_keeps_working(tmp_path, corpus):
    rows = [{"id": "d1", "question": "?", "gold_doc": "ops/rollback.md", "gold_passage": "A pool keeps"},
            {"id": "d2", "question": "?", "gold_slug": "ops_rollback.md", "gold_passage": "A pool keeps"},
            {"id": "d3", "question": "?", "gold_docs": ["ops/rollback.md", "pools.md"]},
            {"id": "d4", "question": "?", "gold_doc": "ops/nope.md", "gold_passage": "A pool keeps"}]
    found, problems = read(tmp_path, corpus, rows)
    assert found["d1"]["gold_slug"] == found["d2"]["gold_slug"] == "ops_rollback.md"
    assert found["d3"]["gold_docs"] == {"ops_rollback.md": 1, "pools.md": 1}
    assert problems == [f"{tmp_path / 'q.jsonl'}:4: d4: gold document missing: no document 'ops/nope.md' in the corpus"]


def test_gold_any_one_unit_of_every_alternatives_chunks(tmp_path, corpus):
    rows = [{"id": "y1", "question": "?", "gold_any": ["managing and distributing", {"doc": "pools.md"}]}]
    gold = located(tmp_path, corpus, rows)["y1"]
    assert gold["kind"] == "any" and [u["id"] for u in gold["units"]] == ["any"]
    assert len(gold["units"][0]["chunks"]) == 2 and gold["gold_slugs"] == ["guides_setup.md", "pools.md"]


@pytest.mark.parametrize("passage", ["managing and distributing the packages", "with its distributing mirror"])
def test_a_passage_copied_across_a_pdf_line_break_is_found(tmp_path, corpus, passage):
    from importers.test_files_importer import write_pdf
    write_pdf(tmp_path / "docs" / "manual.pdf", ["The installer is responsible for managing and\ndistributing the "
                                                 "packages, with its distrib-\nuting mirror."])
    rows = [{"id": "p1", "question": "?", "gold_doc": "manual.pdf", "gold_passage": passage}]
    found, problems = read(tmp_path, corpus, rows)
    assert problems == [] and found["p1"]["gold_slug"] == "manual.pdf"
    assert located(tmp_path, corpus, rows)["p1"]["status"] == "ok"


def test_gold_any_with_a_missing_document_is_one_line(tmp_path, corpus):
    _, problems = read(tmp_path, corpus, [{"id": "y2", "question": "?", "gold_doc": "nope.md",
                                           "gold_any": ["managing and distributing", {"chunk": "x#9"}]}])
    assert problems == [f"{tmp_path / 'q.jsonl'}:1: y2: gold document missing: no document 'nope.md' in the corpus",
                        f"{tmp_path / 'q.jsonl'}:1: y2: unknown chunk id 'x#9'"]
