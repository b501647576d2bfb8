"""Gold at every granularity, scored by the real qcheck and score stages and checked by hand.

The corpus is tests/data/formats/chunked (given chunks): 00000 py-1, 00001 py-2, 00002 py-3
(document pathlib-notes), 00003 http-1, 00004 http-2 (retry-notes). One question per test, one
run, ks 2 and 5, MRR@10, doc recall@2.
"""
import json
import math
from types import SimpleNamespace

import pytest
from conftest import settings, write_lines
from test_importers import FORMATS

from ctxret.chunkers.corpus import chunk_corpus
from ctxret.errors import InputError
from ctxret.evaluation.metrics import configured
from ctxret.importers import read_corpus
from ctxret.retrieval.runs import write_run
from ctxret.stages import qcheck, questions, score


@pytest.fixture
def scored(tmp_path):
    """score(question, ranked) -> (gold entry, summary of the one question, qrels lines)."""
    corpus = settings(corpus={"format": "chunked", "path": str(FORMATS / "chunked" / "corpus.json")})["corpus"]
    docs = read_corpus(corpus)
    write_lines(tmp_path / "docs.jsonl", docs)
    write_lines(tmp_path / "chunks.jsonl", chunk_corpus(docs, {"max_chars": 800}, "given"))

    def run(question: dict, ranked: list[str], strict: bool = True):
        sets = settings(questions={"sets": {"Q": str(write_lines(tmp_path / "q.jsonl", [question]))}})
        questions.questions(input=None, params=SimpleNamespace(sets=sets["questions"]["sets"], corpus=corpus,
                                                               store=str(tmp_path / "store")),
                      output=SimpleNamespace(questions=str(tmp_path / "questions.jsonl"),
                                             sets=str(tmp_path / "question-sets.json")))
        qcheck.qcheck(input=SimpleNamespace(docs=str(tmp_path / "docs.jsonl"), chunks=str(tmp_path / "chunks.jsonl"),
                                         questions=str(tmp_path / "questions.jsonl")),
                   output=SimpleNamespace(gold=str(tmp_path / "gold.json")),
                   params=SimpleNamespace(gap_sets=[], strict=strict))
        run_path = tmp_path / "runs" / "bm25-T1.jsonl"
        write_run(str(run_path), str(run_path.with_suffix(".trec")), "bm25:T1",
                  {question["id"]: [(c, 10.0 - i) for i, c in enumerate(ranked)]})
        out = SimpleNamespace(md=str(tmp_path / "score.md"), json=str(tmp_path / "score.json"),
                              parquet=str(tmp_path / "score.parquet"), qrels=str(tmp_path / "runs" / "qrels.txt"),
                              doc_runs=[str(tmp_path / "runs" / "doc" / "bm25-T1.trec")],
                              doc_qrels=str(tmp_path / "runs" / "doc" / "qrels.txt"),
                              ids=str(tmp_path / "runs" / "ids.json"))
        score.score(input=SimpleNamespace(gold=str(tmp_path / "gold.json"), chunks=str(tmp_path / "chunks.jsonl"),
                                        runs=[str(run_path)], judgments=[]),
                  output=out, params=SimpleNamespace(conditions=[("bm25", "T1")], groups={"Q": ["Q"]}, main_group="Q",
                                                     cutoffs=configured({"ks": [2, 5], "mrr_k": 10, "doc_k": 2,
                                                                         "ndcg_k": 10, "r_k": 5}, 5),
                                                     per_set=False, language="en", title="T"))
        gold = json.loads((tmp_path / "gold.json").read_text())["questions"][question["id"]]
        summary = json.loads((tmp_path / "score.json").read_text())["results"][0]["summary"]
        return gold, summary, (tmp_path / "runs" / "qrels.txt").read_text().splitlines()

    return run


def test_several_passages_each_a_unit(scored):
    q = {"id": "a1", "question": "join and read paths", "gold_slug": "pathlib-notes",
         "gold_passage": ["os.path.join", "Path.read_text"]}
    gold, s, qrels = scored(q, ["00003", "00002", "00004", "00001", "00000"])
    assert gold["kind"] == "passage" and [u["chunks"] for u in gold["units"]] == [["00000"], ["00002"]]
    # first gold chunk 00002 at rank 2: a hit at 2, MRR 1/2; at 2 only passage 2 is found (1/2),
    # at 5 both; the top 2 hold a chunk of pathlib-notes (00002)
    assert (s["fail@2"]["n"], s["recall@2"], s["recall@5"], s["mrr"], s["doc_recall"]["n"]) == (0, 0.5, 1.0, 0.5, 1)
    assert qrels == ["a1 0 py-1 1", "a1 0 py-3 1"]   # the corpus's own chunk ids


def test_several_gold_chunk_ids(scored):
    q = {"id": "a2", "question": "pathlib joins and reads", "gold_chunks": ["py-2", "py-3"]}
    gold, s, qrels = scored(q, ["00004", "00003", "00000", "00001", "00002"])
    assert gold["kind"] == "chunk" and gold["gold_chunks"] == ["00001", "00002"]
    assert gold["gold_slugs"] == ["pathlib-notes"]
    # first gold chunk at rank 4: fail at 2, MRR 1/4; recall 0 at 2, 1 at 5; the top 2 are retry-notes
    assert (s["fail@2"]["n"], s["fail@5"]["n"], s["recall@2"], s["recall@5"], s["mrr"], s["doc_recall"]["n"]) == (
        1, 0, 0.0, 1.0, 0.25, 0)
    assert qrels == ["a2 0 py-2 1", "a2 0 py-3 1"]
    # binary gains: gold at ranks 4 and 5 of 5
    assert s["nDCG@10"] == pytest.approx((1 / math.log2(5) + 1 / math.log2(6)) / (1 + 1 / math.log2(3)))


def test_graded_gold_documents(scored):
    q = {"id": "a3", "question": "paths and retries", "gold_docs": {"retry-notes": 2, "pathlib-notes": 1}}
    gold, s, qrels = scored(q, ["00002", "00001", "00000", "00004", "00003"])
    assert gold["kind"] == "doc" and [(u["id"], u["chunks"], u["grade"]) for u in gold["units"]] == [
        ("pathlib-notes", ["00000", "00001", "00002"], 1), ("retry-notes", ["00003", "00004"], 2)]
    # any chunk of a gold document counts: rank 1, MRR 1; at 2 one of two documents (1/2), at 5 both
    assert (s["fail@2"]["n"], s["recall@2"], s["recall@5"], s["mrr"], s["doc_recall"]["n"]) == (0, 0.5, 1.0, 1.0, 1)
    assert sorted(qrels) == ["a3 0 http-1 2", "a3 0 http-2 2", "a3 0 py-1 1", "a3 0 py-2 1", "a3 0 py-3 1"]
    # nDCG@10, gains 1 1 1 2 2 in run order against the ideal 2 2 1 1 1
    dcg = lambda gains: sum(g / math.log2(i + 2) for i, g in enumerate(gains))  # noqa: E731
    assert s["nDCG@10"] == pytest.approx(dcg([1, 1, 1, 2, 2]) / dcg([2, 2, 1, 1, 1]))
    # the document run: pathlib-notes (best chunk rank 1, grade 1), retry-notes (rank 4, grade 2)
    assert s["doc nDCG@10"] == pytest.approx(dcg([1, 2]) / dcg([2, 1]))
    assert (s["R@5"], s["doc R@5"]) == (1.0, 1.0)


@pytest.mark.parametrize("question, status", [
    ({"gold_chunks": ["py-9"]}, "unknown chunk id"),
    ({"gold_chunks": ["http-1"], "gold_slug": "pathlib-notes"}, "chunk not in its document"),
    ({"gold_docs": ["pathlib-notes", "no-such-doc"]}, "gold document missing"),
])
def test_gold_that_is_not_in_the_corpus_is_named(scored, tmp_path, question, status):
    with pytest.raises(InputError) as e:
        scored({"id": "x1", "question": "?", **question}, [])
    assert f"{tmp_path / 'q.jsonl'}:1: x1: {status}" in str(e.value)


@pytest.mark.parametrize("field, groups", [
    ("gold_chunks", [["py-1", "http-1"], ["py-3"]]),
    ("gold_docs", [["pathlib-notes", "retry-notes"]]),
])
def test_gold_in_groups_every_group_needed_any_member_satisfies_it(scored, field, groups):
    ranked = ["00003", "00001", "00004", "00002", "00000"]   # http-1 py-2 http-2 py-3 py-1
    gold, s, _ = scored({"id": "g1", "question": "groups", field: groups}, ranked)
    assert [u["id"] for u in gold["units"]] == ["|".join(g) for g in groups]
    name = {"00000": "py-1", "00001": "py-2", "00002": "py-3", "00003": "http-1", "00004": "http-2"}
    doc = {"py": "pathlib-notes", "http": "retry-notes"}
    ids = [name[c] for c in ranked] if field == "gold_chunks" else [doc[name[c].split("-")[0]] for c in ranked]
    for k in (2, 5):   # AutoRAG's recall: the share of groups with a member in the top k
        expected = sum(1 for g in groups if set(g) & set(ids[:k])) / len(groups)
        assert s[f"recall@{k}"] == s[f"pass@{k}"] == pytest.approx(expected)


def test_gold_mixing_ids_and_groups_is_named(scored, tmp_path):
    with pytest.raises(InputError) as e:
        scored({"id": "g2", "question": "?", "gold_docs": [["pathlib-notes"], "retry-notes"]}, [])
    assert str(e.value) == (f"{tmp_path / 'q.jsonl'}:1: field 'gold_docs' mixes ids and groups (lists of ids); "
                            f"give one or the other")


def test_gold_any_one_alternative_counts(scored):
    """gold_any is one unit: hit, recall and MRR count the first of any alternative's chunks;
    the qrels judge every alternative's chunks relevant, so nDCG@10 and R@k read them all."""
    q = {"id": "y1", "question": "read a path, or retry", "gold_any": ["Path.read_text", {"chunk": "http-1"}]}
    gold, s, qrels = scored(q, ["00004", "00003", "00001", "00000", "00002"])
    assert gold["kind"] == "any" and [(u["id"], u["chunks"]) for u in gold["units"]] == [("any", ["00002", "00003"])]
    assert gold["gold_slugs"] == ["pathlib-notes", "retry-notes"]   # the passage found alone, the chunk's document
    assert (s["fail@2"]["n"], s["recall@2"], s["recall@5"], s["mrr"], s["doc_recall"]["n"]) == (0, 1.0, 1.0, 0.5, 1)
    assert sorted(qrels) == ["y1 0 http-1 1", "y1 0 py-3 1"]
    assert s["nDCG@10"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(6)) / (1 + 1 / math.log2(3)))
    assert s["R@5"] == 1.0
