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


def question_outcomes(run: dict[str, list[str]], gold: dict[str, dict], slug_of: dict[str, str],
                      ks: list[int], mrr_k: int, doc_k: int) -> dict[str, dict]:
    """{qid: {hit@k, recall@k, doc_hit, rr, rank}} for every question with a gold chunk."""
    out = {}
    for qid, g in gold.items():
        if not g["gold_chunks"]:
            continue
        ranked = run.get(qid, [])
        gold_ids = set(g["gold_chunks"])
        units = [set(u["chunks"]) for u in g["units"]]
        row = {"rank": metrics.gold_rank(ranked, gold_ids),
               "rr": metrics.reciprocal_rank(ranked, gold_ids, mrr_k),
               "doc_hit": metrics.doc_hit_at([slug_of[c] for c in ranked], set(g["gold_slugs"]), doc_k)}
        for k in ks:
            row[f"hit@{k}"] = metrics.hit_at(ranked, gold_ids, k)
            row[f"recall@{k}"] = metrics.recall_at(ranked, units, k)
        out[qid] = row
    return out


def group_members(gold: dict[str, dict], groups: dict[str, list[str]]) -> dict[str, list[str]]:
    """Question ids per reporting group (e.g. HP = H + P), keeping only scorable questions."""
    return {name: [q for q, g in gold.items() if g["set"] in sets and g["gold_chunks"]]
            for name, sets in groups.items()}
