"""Importers: the hand-made data sets of tests/data/formats in each format, and every bad input."""
import json
import shutil
from pathlib import Path

import pyarrow.csv
import pyarrow.parquet
import pytest
from conftest import settings

from ctxret.chunkers.corpus import chunk_corpus
from ctxret.errors import InputError
from ctxret.importers import read_corpus, squad
from ctxret.questions.sets import load_question_sets

FORMATS = Path(__file__).parents[1] / "data" / "formats"
TABLE_COLUMNS = {"id": "page_id", "text": "content", "title": "page_title", "metadata": ["section"]}
QUESTION_COLUMNS = {"id": "qid", "question": "query", "gold_docs": "relevant"}


def load(corpus: dict, sets: dict) -> tuple[list[dict], list[dict], dict]:
    """(docs, questions, import reports) as prep and the questions stage read them."""
    config = settings(corpus=corpus, questions={"sets": sets})
    questions, reports = load_question_sets(config["questions"]["sets"], config["corpus"])
    return read_corpus(config["corpus"]), questions, reports


def squad_config(path=FORMATS / "squad" / "mini.json", **corpus):
    return {"format": "squad", "path": str(path), **corpus}, {"S": {"format": "squad"}}


# ---- SQuAD ---------------------------------------------------------------------------------

def test_squad_one_document_per_title_paragraphs_joined_duplicates_dropped():
    docs, _, _ = load(*squad_config())
    redis, kafka = docs
    source = json.loads((FORMATS / "squad" / "mini.json").read_text(encoding="utf-8"))["data"]
    first, second, _duplicate = (p["context"] for p in source[0]["paragraphs"])
    assert (redis["slug"], redis["title"]) == ("레디스_캐시", "레디스 캐시")   # underscores read as spaces
    assert redis["body"] == f"{first}\n\n{second}"                           # no heading invented
    assert redis["units"] == [{"id": "레디스_캐시#p0", "start": 0, "end": len(first)},
                              {"id": "레디스_캐시#p1", "start": len(first) + 2, "end": len(redis["body"])}]
    assert kafka["body"] == source[1]["paragraphs"][0]["context"].strip()


def test_squad_gold_passage_is_the_run_of_sentences_holding_the_answer_and_unique():
    _, questions, reports = load(*squad_config())
    by_id = {q["id"]: q for q in questions}
    assert list(by_id) == ["r-1", "r-2", "r-3", "r-5", "r-6", "k-1"]
    assert by_id["r-1"]["gold_passage"] == "만료 시간을 정하면 키가 저절로 지워진다."
    assert by_id["r-3"]["gold_passage"] == "allkeys-lru는 모든 키에서 고른다."
    # an answer across two sentences takes both; the context's leading spaces shift no offset
    assert by_id["k-1"]["gold_passage"] == "컨슈머 지연은 쌓인 메시지와 처리한 위치의 차이다. 지연이 크면 파티션을 늘린다."
    assert {q["id"]: q["cluster"] for q in questions if q["id"] in ("r-1", "r-2", "r-3", "k-1")} == {
        "r-1": "레디스_캐시#p0", "r-2": "레디스_캐시#p0", "r-3": "레디스_캐시#p1", "k-1": "카프카#p0"}
    assert by_id["r-5"]["question"] == by_id["r-6"]["question"]
    assert by_id["r-5"]["gold_passage"] != by_id["r-6"]["gold_passage"]
    # r-4's sentence is in two paragraphs; r-7 repeats r-1's text and gold; r-5 and r-6 share a text
    # with other passages: two questions, named in the log. Read counts every question of the kept
    # documents: kept + each drop
    assert reports["S"] == ["8 questions read; dropped: passage not unique in its document 1, same text and "
                            "gold as another question 1; kept 6",
                            "questions r-5, r-6 share one text, each with its own gold: each is scored"]


def test_squad_subset_is_seeded_and_reported():
    corpus, sets = squad_config(min_chars=100)
    sets["S"]["sample"] = 2
    docs, questions, reports = load(corpus, sets)
    again = load(corpus, sets)[1]
    assert [q["id"] for q in questions] == [q["id"] for q in again] and len(questions) == 2
    assert all(q["gold_slug"] == "레디스_캐시" for q in questions)   # 카프카 is under 100 characters
    assert reports["S"][-1] == "a seeded sample (seed 42) of 2 of 5 questions"
    other = load(corpus, {"S": {**sets["S"], "seed": 7}})[1]
    assert len(other) == 2


def test_squad_answer_offsets_that_miss_their_text_name_the_question(tmp_path):
    data = json.loads((FORMATS / "squad" / "mini.json").read_text(encoding="utf-8"))
    data["data"][0]["paragraphs"][0]["qas"][1]["answers"][0]["answer_start"] += 1
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(InputError) as e:
        load(*squad_config(path))
    assert str(e.value) == f"{path}: question r-2: answer_start 68 does not point at its text '서로 다른 시각에'"


def test_squad_answer_passage_helper_cuts_at_sentence_ends():
    context = "첫 문장이다. 둘째 문장에 답이 있다. 셋째다."
    start = context.index("답")
    assert squad.answer_passage(context, start, start + 1) == "둘째 문장에 답이 있다."


# ---- BEIR ----------------------------------------------------------------------------------

def beir(path=FORMATS / "beir"):
    return {"format": "beir", "path": str(path)}, {"B": {"format": "beir"}}


def test_beir_keeps_graded_relevance_and_only_judged_queries():
    docs, questions, _ = load(*beir())
    assert [(d["slug"], d["title"]) for d in docs] == [("d1", "Consumer lag"), ("d2", "Rebalancing"),
                                                      ("d3", ""), ("doc_4", "Idempotence")]   # no title: none
    assert docs[3]["meta"] == {"id": "doc 4"} and docs[0]["meta"] == {"id": "d1", "source": "wiki"}
    assert {q["id"]: q["gold_docs"] for q in questions} == {"q1": {"d1": 2, "d2": 1}, "q2": {"d2": 1},
                                                            "q3": {"d3": 1}}   # score 0 is not gold


def test_beir_questions_log_counts_every_query_left_out_and_why(tmp_path):
    assert load(*beir())[2]["B"] == ["4 questions read; dropped: not in the test qrels 1; kept 3"]
    root = tmp_path / "beir"
    shutil.copytree(FORMATS / "beir", root)
    qrels = root / "qrels" / "test.tsv"
    qrels.write_text(qrels.read_text() + "q4\td1\t0\n")
    assert load(*beir(root))[2]["B"] == ["4 questions read; dropped: every judgement 0 1; kept 3"]


@pytest.mark.parametrize("row, message", [
    ("q9\td1\t1", "query 'q9' is not in {queries}"),
    ("q1\td9\t1", "document 'd9' is not in {corpus}"),
    ("q1\td1\thigh", "expected query-id<TAB>corpus-id<TAB>integer score"),
])
def test_beir_qrels_errors_name_file_and_line(tmp_path, row, message):
    root = tmp_path / "beir"
    shutil.copytree(FORMATS / "beir", root)
    qrels = root / "qrels" / "test.tsv"
    qrels.write_text(qrels.read_text() + row + "\n")
    with pytest.raises(InputError) as e:
        load(*beir(root))
    where = f"{qrels}:8: "
    assert str(e.value) == where + message.format(queries=root / "queries.jsonl", corpus=root / "corpus.jsonl")


def test_an_empty_corpus_is_named(tmp_path):
    root = tmp_path / "beir"
    shutil.copytree(FORMATS / "beir", root)
    (root / "corpus.jsonl").write_text("\n")
    with pytest.raises(InputError, match=rf"^{root / 'corpus.jsonl'}: the corpus is empty$"):
        read_corpus(settings(corpus=beir(root)[0])["corpus"])


# ---- pre-chunked ---------------------------------------------------------------------------

def chunked(path=FORMATS / "chunked" / "corpus.json"):
    return ({"format": "chunked", "path": str(path), "language": "en"},
            {"C": str(FORMATS / "chunked" / "questions.jsonl")})


def test_given_chunks_keep_the_files_boundaries_exactly():
    docs, questions, _ = load(*chunked())
    source = json.loads((FORMATS / "chunked" / "corpus.json").read_text())
    chunks = chunk_corpus(docs, {"max_chars": 800}, "given")
    assert [(c["unit"], c["section"], c["text"]) for c in chunks] == [
        (c["id"], c["section"], c["text"]) for d in source for c in d["chunks"]]
    assert all(c["units"] == [c["unit"]] for c in chunks)
    assert {q["id"]: q["gold_chunks"] for q in questions} == {
        "c1": ["py-1"], "c2": ["py-3"], "c3": ["py-2", "py-3"], "c4": ["http-2"]}


def test_a_repeated_chunk_id_is_named(tmp_path):
    source = json.loads((FORMATS / "chunked" / "corpus.json").read_text())
    source[1]["chunks"][0]["id"] = "py-2"
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(source))
    with pytest.raises(InputError) as e:
        read_corpus(settings(corpus=chunked(path)[0])["corpus"])
    assert str(e.value) == f"{path}: document 1: chunk id 'py-2' repeated (first in document 'pathlib-notes')"


def test_paragraph_chunking_of_given_units_names_a_representative_unit():
    docs, _, _ = load(*chunked())
    chunks = chunk_corpus(docs, {"max_chars": 200}, "paragraph")   # paragraphs packed: several units per chunk
    first = chunks[0]
    assert first["units"] == ["py-1", "py-2"] and first["unit"] == "py-1"   # py-1 is the longer


# ---- tables --------------------------------------------------------------------------------

def table(corpus_path, questions_path):
    return ({"format": "table", "path": str(corpus_path), "columns": TABLE_COLUMNS},
            {"T": {"format": "table", "path": str(questions_path), "columns": QUESTION_COLUMNS}})


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".jsonl"])
def test_tables_in_every_file_type_give_the_same_documents_and_questions(tmp_path, suffix):
    paths = {}
    for name in ("corpus", "questions"):
        rows = pyarrow.csv.read_csv(FORMATS / "table" / f"{name}.csv")
        paths[name] = tmp_path / f"{name}{suffix}"
        if suffix == ".parquet":
            if name == "questions":   # a list column, as page-level benchmarks store their gold
                gold = [json.loads(v) if v.startswith("[") else [v] for v in rows.column("relevant").to_pylist()]
                rows = rows.set_column(2, "relevant", pyarrow.array(gold))
            pyarrow.parquet.write_table(rows, paths[name])
        elif suffix == ".jsonl":
            paths[name].write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows.to_pylist()))
        else:
            shutil.copy(FORMATS / "table" / f"{name}.csv", paths[name])
    docs, questions, _ = load(*table(paths["corpus"], paths["questions"]))
    assert [(d["slug"], d["title"], d["meta"]) for d in docs][:2] == [
        ("p-01", "국민연금 가입", {"id": "p-01", "section": "연금"}),
        ("p-02", "국민연금 수령", {"id": "p-02", "section": "연금"})]
    assert docs[0]["body"] == "국민연금은 18세 이상 60세 미만의 국민이 가입 대상이다."
    assert {q["id"]: q["gold_docs"] for q in questions} == {
        "t1": {"p-01": 1}, "t2": {"p-02": 1, "p-01": 1}, "t3": {"p-03": 1}}


def test_a_missing_column_is_named_with_the_columns_there(tmp_path):
    corpus, sets = table(FORMATS / "table" / "corpus.csv", FORMATS / "table" / "questions.csv")
    corpus["columns"] = {**TABLE_COLUMNS, "text": "body"}
    with pytest.raises(InputError) as e:
        read_corpus(settings(corpus=corpus)["corpus"])
    assert str(e.value) == (f"{FORMATS / 'table' / 'corpus.csv'}: no column 'body' "
                            f"(columns: page_id, page_title, content, section)")


def test_a_question_id_with_whitespace_is_refused(tmp_path):
    path = tmp_path / "questions.csv"
    path.write_text((FORMATS / "table" / "questions.csv").read_text().replace("t2,", " t2,"), encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{path} \(row 2\): id ' t2' contains whitespace$"):
        load(*table(FORMATS / "table" / "corpus.csv", path))
