"""Judged sets' pure parts: the pool (every run's top depth), the grade read from a reply, the graded
qrels a question without gold gets (scored by ir_measures as ctxret scores them), and Cohen's
kappa against scikit-learn's."""
import random

import ir_measures
import pytest
from ir_measures import R, Success, nDCG
from sklearn.metrics import cohen_kappa_score

from ctxret.evaluation.judgments import agreement, cohen_kappa, judged_gold, parse_grade, pool
from ctxret.evaluation.metrics import Measure, chunk_grades, question_outcomes
from ctxret.retrieval.runs import qrels_text


def test_the_pool_is_the_union_of_every_runs_top_depth_rank_one_first():
    a = {"q": ["c1", "c2", "c3", "c4"]}
    b = {"q": ["c5", "c1", "c6", "c7"]}
    assert pool([a, b], ["q"], 2) == {"q": ["c1", "c5", "c2"]}
    assert pool([a, b], ["q"], 3) == {"q": ["c1", "c5", "c2", "c3", "c6"]}
    assert pool([a, {"q": ["c9"]}], ["q"], 3) == {"q": ["c1", "c9", "c2", "c3"]}   # a short run


@pytest.mark.parametrize("reply, grade", [("2", 2), (" 3\n", 3), ("0.", 0), ("Grade: 1", 1), ("grade=2", 2),
                                          ("4", None), ("2 or 3", None), ("relevant", None), ("", None)])
def test_a_reply_is_one_grade_or_none(reply, grade):
    assert parse_grade(reply) == grade


def gold_of(kind, chunks=(), slug="d1"):
    return {"set": "J", "question": "?", "kind": kind, "status": "ok", "gold_slug": slug if chunks else None,
            "units": [{"id": c, "chunks": [c], "grade": 1} for c in chunks], "gold_chunks": list(chunks),
            "gold_slugs": [slug] if chunks else []}


def test_a_question_without_gold_is_scored_by_its_graded_qrels_as_ir_measures_scores_them():
    rng = random.Random(7)
    chunks = [f"c{i}" for i in range(30)]
    slug_of = {c: f"d{int(c[1:]) // 4}" for c in chunks}
    qids = [f"q{i}" for i in range(12)]
    grades = {q: {c: rng.choice([0, 0, 1, 2, 3]) for c in rng.sample(chunks, 8)} for q in qids}
    grades["q0"] = dict.fromkeys(grades["q0"], 0)   # nothing relevant in its pool: not scored
    gold = judged_gold({q: gold_of("none") for q in qids}, grades, slug_of)
    assert gold["q0"]["gold_chunks"] == [] and gold["q1"]["kind"] == "judged"
    assert chunk_grades(gold["q1"]) == grades["q1"]   # the zeros judged too
    run = {q: rng.sample(chunks, 20) for q in qids}
    measures = [Measure("nDCG", 10), Measure("R", 20), Measure("Success", 5)]
    outcomes = question_outcomes(run, gold, slug_of, measures)
    assert list(outcomes) == qids[1:]
    rows = [line.split() for line in qrels_text(gold, {c: c for c in chunks}).splitlines()]
    qrels = [ir_measures.Qrel(q, c, int(g)) for q, _, c, g in rows]
    trec = [ir_measures.ScoredDoc(q, c, 20.0 - i) for q, ranked in run.items() if q != "q0"
            for i, c in enumerate(ranked)]
    expected = ir_measures.calc_aggregate([nDCG @ 10, R @ 20, Success @ 5], qrels, trec)
    for measure, theirs in ((measures[0], nDCG @ 10), (measures[1], R @ 20), (measures[2], Success @ 5)):
        ours = sum(float(o[measure.name]) for o in outcomes.values()) / len(outcomes)
        assert ours == pytest.approx(expected[theirs], abs=1e-12)


def test_a_question_with_gold_keeps_it_and_the_agreement_is_cohens_kappa():
    rng = random.Random(3)
    chunks = [f"c{i}" for i in range(20)]
    gold = {f"h{i}": gold_of("passage", rng.sample(chunks, 2)) for i in range(10)}
    gold["q1"] = gold_of("none")
    grades = {q: {c: rng.choice([0, 1, 2, 3]) if c in gold[q]["gold_chunks"] or rng.random() < 0.3 else 0
                  for c in rng.sample(chunks, 6) + gold[q]["gold_chunks"]} for q in gold}
    assert judged_gold(gold, grades, {c: "d1" for c in chunks})["h1"] == gold["h1"]
    agreed = agreement(gold, grades)
    pairs = [(g > 0, c in gold[q]["gold_chunks"]) for q in gold if q != "q1" for c, g in grades[q].items()]
    assert agreed["questions"] == 10 and agreed["pairs"] == len(pairs)
    assert agreed["kappa"] == pytest.approx(cohen_kappa_score(*zip(*pairs, strict=True)), abs=1e-4)
    assert agreement({"q1": gold["q1"]}, {"q1": grades["q1"]}) is None


def test_kappa_is_one_for_full_agreement_and_undefined_when_chance_explains_everything():
    assert cohen_kappa([(True, True), (False, False), (True, True)]) == pytest.approx(1.0)
    assert cohen_kappa([(True, True), (True, True)]) is None
    assert cohen_kappa([]) is None
    swapped = [(True, False), (False, True), (True, False), (False, True)]
    assert cohen_kappa(swapped) == pytest.approx(cohen_kappa_score(*zip(*swapped, strict=True)))
