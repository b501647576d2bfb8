"""Question sets as users bring them: without ids (each question named by its set and line),
with other field names (a JSONL set's columns, as a table's), and with chunk gold as [document
id, chunk index or chunk id] pairs against the corpus file (the Anthropic cookbook's shape,
tests/data/formats/cookbook). Every bad input is one line naming the file and line."""
import json
import re
from pathlib import Path

import pytest
from conftest import settings, write_lines

from ctxret.errors import InputError
from ctxret.importers import set_files
from ctxret.questions.sets import cluster_of, fingerprint, load_question_sets

COOKBOOK_DIR = Path(__file__).parents[1] / "data" / "formats" / "cookbook"
CORPUS = {"format": "chunked", "path": str(COOKBOOK_DIR / "codebase_chunks.json"), "language": "en",
          "columns": {"id": "original_uuid", "chunk_id": "chunk_id", "text": "content"}}
DOCS = json.loads((COOKBOOK_DIR / "codebase_chunks.json").read_text())
UUID = {d["doc_id"]: d["original_uuid"] for d in DOCS}
PAIRS = {"question": "query", "gold_chunk_pairs": "golden_chunk_uuids"}


def load(sets: dict, corpus: dict = CORPUS) -> list[dict]:
    config = settings(corpus=corpus, questions={"sets": sets})
    return load_question_sets(config["questions"]["sets"], config["corpus"])[0]


def jsonl_set(path: Path, rows: list, **columns) -> dict:
    return {"format": "jsonl", "path": str(write_lines(path, rows)), "columns": columns}


def error(sets: dict, corpus: dict = CORPUS) -> str:
    with pytest.raises(InputError) as e:
        load(sets, corpus)
    assert "\n" not in str(e.value)
    return str(e.value)


# ---- ids -------------------------------------------------------------------------------------

def test_a_set_without_ids_names_each_question_by_its_set_and_line_each_its_own_cluster(tmp_path):
    rows = [{"question": "One?", "gold_docs": ["d1"]}, "", {"question": "Two?", "gold_docs": ["d2"]}]
    found = load({"v2": jsonl_set(tmp_path / "v2.jsonl", rows),
                  "B": jsonl_set(tmp_path / "b.jsonl", [{"question": "Three?", "gold_docs": ["d1"]}])})
    assert [q["id"] for q in found] == ["v2:1", "v2:3", "B:1"]
    # the default cluster key (a number) would put v2:1 and B:1 in one cluster, and all of v2 in
    # cluster "2": each question is a cluster of its own instead
    assert [cluster_of(q, r"\d+") for q in found] == ["v2:1", "v2:3", "B:1"]


def test_a_set_with_ids_keeps_them_and_an_empty_id_column_names_questions_by_line(tmp_path):
    rows = [{"id": "q7", "question": "One?", "gold_docs": ["d1"], "cluster": "c"},
            {"id": "q8", "question": "Two?", "gold_docs": ["d2"]}]
    assert [(q["id"], cluster_of(q, r"\d+")) for q in load({"S": jsonl_set(tmp_path / "s.jsonl", rows)})] == [
        ("q7", "c"), ("q8", "8")]
    found = load({"S": jsonl_set(tmp_path / "s.jsonl", rows, id="")})
    assert [(q["id"], cluster_of(q, r"\d+")) for q in found] == [("S:1", "c"), ("S:2", "S:2")]


def test_a_jsonl_sets_fields_are_mapped_by_its_columns(tmp_path):
    rows = [{"qid": "a-1", "query": "Where?", "question": "not this one", "relevant": ["d1"]}]
    (q,) = load({"S": jsonl_set(tmp_path / "s.jsonl", rows, id="qid", question="query", gold_docs="relevant")})
    assert (q["id"], q["question"], q["gold_docs"]) == ("a-1", "Where?", {"d1": 1})


@pytest.mark.parametrize("rows, columns, message", [
    ([{"id": "a", "question": "One?", "gold_docs": ["d1"]}, {"question": "Two?", "gold_docs": ["d1"]}], {},
     "{path}:2: field 'id' is missing or empty"),
    ([{"question": "One?", "gold_docs": ["d1"]}, {"id": "b", "question": "Two?", "gold_docs": ["d1"]}], {},
     "{path}:1: field 'id' is missing or empty"),
    ([{"question": "One?", "gold_docs": ["d1"]}], {"id": "qid"},
     "{path}:1: no field 'qid' (questions.sets.S.columns.id)"),
])
def test_ids_for_some_questions_only_or_a_mapped_id_field_nowhere_name_the_line(tmp_path, rows, columns, message):
    path = tmp_path / "s.jsonl"
    assert error({"S": jsonl_set(path, rows, **columns)}) == message.format(path=path)


def test_a_set_without_ids_needs_a_name_without_whitespace(tmp_path):
    sets = {"my set": jsonl_set(tmp_path / "s.jsonl", [{"question": "One?", "gold_docs": ["d1"]}])}
    assert error(sets).startswith("config questions.sets.my set: the questions have no ids")


def test_a_table_without_an_id_column_names_questions_by_row_and_reads_chunk_pairs(tmp_path):
    path = tmp_path / "qa.csv"
    uuid = UUID["doc_2"]
    path.write_text(f'query,gold\nHow does it wait?,"[[""{uuid}"", 1], [""{uuid}"", ""doc_2_chunk_0""]]"\n'
                    f'How is text split?,"[[""{UUID["doc_3"]}"", 0]]"\n', encoding="utf-8")
    table_set = {"format": "table", "path": str(path), "columns": {"question": "query", "gold_chunk_pairs": "gold"}}
    found = load({"T": table_set})
    assert [(q["id"], q["gold_chunks"]) for q in found] == [
        ("T:1", ["doc_2_chunk_1", "doc_2_chunk_0"]), ("T:2", ["doc_3_chunk_0"])]
    # the set is read with the corpus file: a change there is a change of the set
    config = settings(corpus=CORPUS, questions={"sets": {"T": table_set}})
    assert set_files(config["questions"]["sets"]["T"], config["corpus"]) == [str(path), CORPUS["path"]]


# ---- chunk pairs -----------------------------------------------------------------------------

def test_pairs_name_a_chunk_by_position_by_a_named_index_field_or_by_chunk_id(tmp_path):
    # the corpus numbers its chunks from 10: the index field and the position differ
    shifted = [{**d, "chunks": [{**c, "original_index": c["original_index"] + 10} for c in d["chunks"]]} for d in DOCS]
    (tmp_path / "corpus.json").write_text(json.dumps(shifted))
    corpus = {**CORPUS, "path": str(tmp_path / "corpus.json")}
    rows = [{"query": "Q?", "golden_chunk_uuids": [[UUID["doc_1"], 1], [UUID["doc_3"], "doc_3_chunk_0"]]}]
    sets = {"C": jsonl_set(tmp_path / "c.jsonl", rows, **PAIRS)}
    assert load(sets, corpus)[0]["gold_chunks"] == ["doc_1_chunk_1", "doc_3_chunk_0"]
    rows[0]["golden_chunk_uuids"][0][1] = 11
    sets = {"C": jsonl_set(tmp_path / "c.jsonl", rows, **PAIRS)}
    by_field = {**corpus, "columns": {**corpus["columns"], "chunk_index": "original_index"}}
    assert load(sets, by_field)[0]["gold_chunks"] == ["doc_1_chunk_1", "doc_3_chunk_0"]
    # and a set's fingerprint follows the chunks its pairs name
    config = settings(corpus=by_field, questions={"sets": sets})
    before = fingerprint(config["questions"]["sets"], config["corpus"], load(sets, by_field))
    first, second = shifted[0]["chunks"]
    first["original_index"], second["original_index"] = second["original_index"], first["original_index"]
    (tmp_path / "corpus.json").write_text(json.dumps(shifted))
    assert load(sets, by_field)[0]["gold_chunks"] == ["doc_1_chunk_0", "doc_3_chunk_0"]
    assert fingerprint(config["questions"]["sets"], config["corpus"], load(sets, by_field)) != before


@pytest.mark.parametrize("pair, columns, message", [
    (["no-such-uuid", 0], {},
     "{path}:2: gold_chunk_pairs [\"no-such-uuid\", 0]: no document 'no-such-uuid' in {corpus} (a document's id is "
     "its field 'original_uuid': corpus.columns.id)"),
    ([UUID["doc_1"], 2], {},
     f"{{path}}:2: gold_chunk_pairs [\"{UUID['doc_1']}\", 2]: document '{UUID['doc_1']}' has no chunk 2 "
     f"(its 2 chunks are 0 to 1)"),
    ([UUID["doc_1"], 5], {"chunk_index": "original_index"},
     f"{{path}}:2: gold_chunk_pairs [\"{UUID['doc_1']}\", 5]: document '{UUID['doc_1']}' has no chunk whose "
     f"'original_index' is 5"),
    ([UUID["doc_1"], "doc_2_chunk_0"], {},
     f"{{path}}:2: gold_chunk_pairs [\"{UUID['doc_1']}\", \"doc_2_chunk_0\"]: document '{UUID['doc_1']}' has no "
     f"chunk 'doc_2_chunk_0'"),
])
def test_a_pair_naming_no_document_or_chunk_of_the_corpus_names_file_line_and_pair(tmp_path, pair, columns, message):
    rows = [{"query": "Fine?", "golden_chunk_uuids": [[UUID["doc_1"], 0]]},
            {"query": "Broken?", "golden_chunk_uuids": [[UUID["doc_1"], 0], pair]}]
    path = tmp_path / "eval.jsonl"
    corpus = {**CORPUS, "columns": {**CORPUS["columns"], **columns}}
    assert error({"C": jsonl_set(path, rows, **PAIRS)}, corpus) == message.format(path=path, corpus=CORPUS["path"])


@pytest.mark.parametrize("row, message", [
    ({"query": "Q?", "golden_chunk_uuids": [["uuid"]]},
     "field 'gold_chunk_pairs' must be a non-empty list of [document id, chunk index (an integer from 0) or chunk "
     "id] pairs, got [[\"uuid\"]]"),
    ({"query": "Q?", "golden_chunk_uuids": [["uuid", -1]]}, "got [[\"uuid\", -1]]"),
    ({"query": "Q?", "golden_chunk_uuids": [["uuid", 0]], "gold_docs": ["d1"]},
     "give exactly one of gold_passage, gold_chunks, gold_docs, gold_any, gold_chunk_pairs (gold_chunk_pairs and gold_docs "
     "given)"),
])
def test_malformed_pairs_name_file_and_line(tmp_path, row, message):
    path = tmp_path / "eval.jsonl"
    found = error({"C": jsonl_set(path, [row], **PAIRS)})
    assert found.startswith(f"{path}:1: ") and message in found


def test_pairs_need_a_corpus_with_its_own_chunks(tmp_path):
    path = tmp_path / "eval.jsonl"
    table = {"format": "table", "path": str(Path(__file__).parents[1] / "data" / "formats" / "table" / "corpus.csv")}
    found = error({"C": jsonl_set(path, [{"question": "Q?", "gold_chunk_pairs": [["p-01", 0]]}])}, table)
    assert re.fullmatch(rf"{re.escape(str(path))}:1: gold_chunk_pairs name a corpus's own chunks, which only "
                        r"corpus.format 'chunked' has \(corpus.format is 'table'\)", found)
