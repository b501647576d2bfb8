"""Per-question measures and their registry."""
import pytest
from conftest import settings

from ctxret.errors import InputError
from ctxret.evaluation.metrics import (Measure, configured, doc_hit_at, gold_rank, hit_at, measure_problems, parse,
                                       precision_at, recall_at, reciprocal_rank, reported)

RANKED = ["c1", "c2", "c3", "c4", "c5", "c6"]


def test_hit_and_failure_at_k():
    assert hit_at(RANKED, {"c5"}, 5)
    assert not hit_at(RANKED, {"c6"}, 5)
    assert hit_at(RANKED, {"c6", "c1"}, 1)


def test_recall_counts_each_gold_unit_once_whichever_of_its_chunks_is_found():
    assert recall_at(RANKED, [{"c1"}, {"c6"}], 5) == 0.5
    assert recall_at(RANKED, [{"c1"}, {"c6"}], 6) == 1.0
    assert recall_at(RANKED, [{"c6", "c2"}, {"x"}], 5) == 0.5   # a passage held by c2 and c6
    assert recall_at(RANKED, [{"c1", "c2", "c3"}], 2) == 1.0    # a document of three chunks


def test_reciprocal_rank_and_gold_rank():
    assert reciprocal_rank(RANKED, {"c3"}, 10) == 1 / 3
    assert reciprocal_rank(RANKED, {"c6"}, 5) == 0.0
    assert gold_rank(RANKED, {"c4", "c6"}) == 4
    assert gold_rank(RANKED, {"x"}) is None


def test_document_hit_counts_any_gold_document():
    assert doc_hit_at(["a", "b", "c"], {"b"}, 2)
    assert not doc_hit_at(["a", "b", "c"], {"c"}, 2)
    assert doc_hit_at(["a", "b", "c"], {"c", "a"}, 1)


def test_precision_counts_judged_relevant_items_over_k():
    grades = {"c2": 1, "c4": 2, "c9": 0, "x": 1}
    assert precision_at(RANKED, grades, 5) == 2 / 5
    assert precision_at(RANKED, grades, 1) == 0.0
    assert precision_at(RANKED[:2], grades, 5) == 1 / 5     # a short run still divides by k, as trec_eval does


def test_a_measure_name_is_parsed_once_into_family_cut_off_and_level():
    assert parse("nDCG@10") == Measure("nDCG", 10)
    assert parse("doc P@5") == Measure("P", 5, "doc")
    assert [parse(n).name for n in ("RR@10", "doc R@100", "P@5")] == ["RR@10", "doc R@100", "P@5"]
    with pytest.raises(InputError, match="'MAP@10' is not a measure: .* a family among Success, Pass"):
        parse("MAP@10")
    with pytest.raises(InputError, match="'doc RR@10': RR is read at chunk level only"):
        parse("doc RR@10")
    with pytest.raises(InputError, match="'P@0' is not a measure"):
        parse("P@0")


def test_the_score_section_gives_the_measures_of_a_run_in_the_order_of_its_summary():
    score = settings(score={"ks": [1, 5], "measures": ["P@5", "doc P@3"]})["score"]
    assert [m.name for m in reported(configured(score, 100))] == [
        "Success@1", "Pass@1", "Success@5", "Pass@5", "DocSuccess@5", "RR@10", "nDCG@10", "doc nDCG@10",
        "R@100", "doc R@100", "P@5", "doc P@3"]
    assert configured(score, 20)["r_k"] is None                     # runs 20 deep do not reach R@100
    assert "measures" not in configured(settings()["score"], 100)  # score.json as it was without extra measures


def test_an_extra_measure_that_cannot_be_reported_is_named_by_its_key():
    score = settings(score={"measures": ["P@5", "RR@20", "nDCG@10", "P@50", "F@5"]})["score"]
    assert [key for key, _ in measure_problems(score, 20)] == [f"score.measures.{i}" for i in (1, 2, 3, 4)]
    assert measure_problems(score, 20)[0][1] == "'RR@20': RR is reported once, at score.mrr_k"
    with pytest.raises(InputError, match=r"config score.measures.1: 'RR@20'"):
        configured(score, 20)
