"""A table corpus whose ids hold spaces (`commerce - refunds`) through a real run: every output a
user reads names a document by its own id; the TREC files, which split on whitespace, write `_`
for it and runs/ids.json maps each such name back; distinct ids never fold into one."""
import csv
import json
import re

from conftest import read_lines
from test_experiments import BM25_ONLY, write_config
from workflow import snakemake

from ctxret.retrieval.runs import chunk_names, doc_names, id_map
from ctxret.text.documents import safe_slug

DOCS = {"commerce - refunds": ("Refunds", "A refund reaches the card within five working days."),
        "commerce  -  shipping": ("Shipping", "Parcels leave the depot every morning at seven."),
        "faq": ("Questions", "The office opens at nine and closes at five.")}


def table_experiment(tmp, ids) -> dict:
    corpus, questions = tmp / "corpus.csv", tmp / "questions.csv"
    with open(corpus, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("page_id", "page_title", "content"),
                                 *((i, *DOCS.get(i, ("Other", "Other text."))) for i in ids)])
    with open(questions, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("qid", "query", "relevant"),
                                 ("t1", "When does a refund reach the card?", json.dumps(["commerce - refunds"])),
                                 ("t2", "When do parcels leave the depot?", json.dumps(["commerce  -  shipping"]))])
    return {"corpus": {"format": "table", "path": str(corpus), "language": "en",
                       "columns": {"id": "page_id", "text": "content", "title": "page_title"}},
            "questions": {"sets": {"T": {"format": "table", "path": str(questions),
                                         "columns": {"id": "qid", "question": "query", "gold_docs": "relevant"}}}},
            **BM25_ONLY}


def test_outputs_name_documents_by_their_own_ids_and_trec_files_map_theirs_back(tmp_path):
    snakemake(write_config(tmp_path, table_experiment(tmp_path, list(DOCS))))
    res = tmp_path / "results"
    chunks = read_lines(res / "chunks.jsonl")
    assert {c["doc"] for c in chunks} == set(DOCS)
    assert {c["name"] for c in chunks} == set(DOCS)   # each record is one whole chunk: named by its id
    assert {line.split()[2] for line in (res / "runs" / "qrels.txt").read_text().splitlines()} == {
        "commerce_-_refunds", "commerce_-_shipping"}
    docs_ranked = {line.split()[2] for trec in (res / "runs" / "doc").glob("bm25-*.trec")
                   for line in trec.read_text().splitlines()}
    assert {"commerce_-_refunds", "commerce_-_shipping"} <= docs_ranked <= {"commerce_-_refunds", "commerce_-_shipping",
                                                                           "faq"}
    assert json.loads((res / "runs" / "ids.json").read_text()) == {
        "chunks": {"commerce_-_refunds": "commerce - refunds", "commerce_-_shipping": "commerce  -  shipping"},
        "docs": {"commerce_-_refunds": "commerce - refunds", "commerce_-_shipping": "commerce  -  shipping"}}
    explorer = (res / "report" / "explorer.html").read_text(encoding="utf-8")
    assert '"name": "commerce  -  shipping"' in explorer or '"name":"commerce  -  shipping"' in explorer


def test_two_ids_that_would_share_a_slug_stop_the_run_in_one_line(tmp_path):
    proc = snakemake(write_config(tmp_path, table_experiment(tmp_path, ["a  b", "a b", *DOCS])), "-n", check=False)
    errors = re.findall(r"^error: .*$", proc.stderr, re.MULTILINE)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert errors == [f"error: {tmp_path / 'corpus.csv'}: documents 'a  b' and 'a b' share the slug 'a_b'"]
    assert not (tmp_path / "results" / "chunks.jsonl").exists()


def test_ids_that_differ_only_where_trec_files_write_underscores_stay_two_names():
    """`a /b` and `a_/b` have two slugs (a_b, a__b) but one TREC spelling: the id that needs no
    change keeps it, the other gets `~<its slug>`, and runs/ids.json maps it back."""
    chunks = [{"chunk_id": str(k), "slug": safe_slug(doc), "doc": doc, "name": doc}
              for k, doc in enumerate(["a /b", "a_/b"])]
    assert doc_names(chunks) == {"a_b": "a_/b~a_b", "a__b": "a_/b"}
    assert chunk_names(chunks) == {"0": "a_/b~0", "1": "a_/b"}
    assert id_map(chunks) == {"chunks": {"a_/b~0": "a /b"}, "docs": {"a_/b~a_b": "a /b"}}
