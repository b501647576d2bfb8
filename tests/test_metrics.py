"""Per-question measures."""
from ctxret.metrics import doc_hit_at, gold_rank, hit_at, recall_at, reciprocal_rank

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
