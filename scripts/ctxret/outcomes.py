"""Per-question outcomes of one condition (retriever x variant) against the gold chunks."""
from __future__ import annotations

from dataclasses import dataclass

from . import metrics


@dataclass(frozen=True)
class Condition:
    retriever: str
    variant: str

    @property
    def name(self) -> str:
        return f"{self.retriever}:{self.variant}"


@dataclass(frozen=True)
class Cutoffs:
    """The depths the figures are read at (score.ks, mrr_k, doc_k, ndcg_k, r_k); nDCG and R are
    left out where their depth is None (R: the runs do not reach r_k)."""
    ks: tuple[int, ...]
    mrr_k: int
    doc_k: int
    ndcg_k: int | None = None
    r_k: int | None = None


def chunk_grades(g: dict) -> dict[str, int]:
    """A question's judged chunks: each gold unit's chunks at the unit's grade (the best of
    several units), as in runs/qrels.txt."""
    grades: dict[str, int] = {}
    for u in g["units"] if g["gold_chunks"] else []:
        for c in u["chunks"]:
            grades[c] = max(grades.get(c, 0), u["grade"])
    return grades


def doc_grades(judged: dict[str, int], slug_of: dict[str, str]) -> dict[str, int]:
    """A question's judged documents from its judged chunks: each document holding one, at the
    best grade among them (runs/doc/qrels.txt)."""
    grades: dict[str, int] = {}
    for cid, grade in judged.items():
        grades[slug_of[cid]] = max(grades.get(slug_of[cid], 0), grade)
    return grades


def question_outcomes(run: dict[str, list[str]], gold: dict[str, dict], slug_of: dict[str, str],
                      cut: Cutoffs) -> dict[str, dict]:
    """{qid: {hit@k, recall@k, doc_hit, rr, rank, nDCG and R at chunk and document level}} for
    every question with a gold chunk."""
    out = {}
    for qid, g in gold.items():
        if not g["gold_chunks"]:
            continue
        ranked = run.get(qid, [])
        gold_ids = set(g["gold_chunks"])
        units = [set(u["chunks"]) for u in g["units"]]
        grades = chunk_grades(g)
        docs, by_doc = metrics.document_ranking(ranked, slug_of), doc_grades(grades, slug_of)
        row = {"rank": metrics.gold_rank(ranked, gold_ids),
               "rr": metrics.reciprocal_rank(ranked, gold_ids, cut.mrr_k),
               "doc_hit": metrics.doc_hit_at([slug_of[c] for c in ranked], set(g["gold_slugs"]), cut.doc_k)}
        if cut.ndcg_k:
            row["ndcg"] = metrics.ndcg_at(ranked, grades, cut.ndcg_k)
            row["doc_ndcg"] = metrics.ndcg_at(docs, by_doc, cut.ndcg_k)
        if cut.r_k:
            row["R"] = metrics.judged_recall_at(ranked, grades, cut.r_k)
            row["doc_R"] = metrics.judged_recall_at(docs, by_doc, cut.r_k)
        for k in cut.ks:
            row[f"hit@{k}"] = metrics.hit_at(ranked, gold_ids, k)
            row[f"recall@{k}"] = metrics.recall_at(ranked, units, k)
        out[qid] = row
    return out


def group_members(gold: dict[str, dict], groups: dict[str, list[str]]) -> dict[str, list[str]]:
    """Question ids per reporting group (e.g. HP = H + P), keeping only scorable questions."""
    return {name: [q for q, g in gold.items() if g["set"] in sets and g["gold_chunks"]]
            for name, sets in groups.items()}
