"""Per-question outcomes of one condition (retriever x variant) against the gold chunks."""
from __future__ import annotations

from . import metrics


def condition_name(retriever: str, variant: str) -> str:
    """A condition's name, as runs, score.json and pairs.primary write it: `<retriever>:<variant>`."""
    return f"{retriever}:{variant}"


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
                      measures: list[metrics.Measure]) -> dict[str, dict]:
    """{qid: {rank, and each measure by its name}} for every question with a gold chunk; a
    document-level measure reads the document run (a document at the rank of its best chunk)."""
    out = {}
    for qid, g in gold.items():
        if not g["gold_chunks"]:
            continue
        ranked = run.get(qid, [])
        gold_ids, grades = set(g["gold_chunks"]), chunk_grades(g)
        by_doc = doc_grades(grades, slug_of)
        levels = {"chunk": metrics.Judged(ranked, gold_ids, grades, [set(u["chunks"]) for u in g["units"]],
                                          [slug_of[c] for c in ranked], frozenset(g["gold_slugs"])),
                  "doc": metrics.Judged(metrics.document_ranking(ranked, slug_of),
                                        {d for d, grade in by_doc.items() if grade > 0}, by_doc)}
        out[qid] = {"rank": metrics.gold_rank(ranked, gold_ids), **{m.name: m.score(levels[m.level]) for m in measures}}
    return out


def group_members(gold: dict[str, dict], groups: dict[str, list[str]]) -> dict[str, list[str]]:
    """Question ids per reporting group (e.g. HP = H + P), keeping only scorable questions."""
    return {name: [q for q, g in gold.items() if g["set"] in sets and g["gold_chunks"]]
            for name, sets in groups.items()}
