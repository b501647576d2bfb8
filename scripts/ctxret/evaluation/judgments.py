"""Judged question sets (questions.sets.<name>.judge): relevance graded by an LLM instead of gold
written by hand, as pure functions; the stage judge asks the LLM and writes the judgments.

TREC-style pooling: a question's pool is the union of every condition's top `depth` chunks
(interleaved by rank, so the order is the same whatever the number of conditions). Each pooled
(question, chunk) pair is graded 0-3 (0 not relevant, 1 related, 2 relevant, 3 answers it). A
question without gold is then scored by its graded qrels: every chunk graded above 0 a gold unit
at its grade, every pooled chunk judged (graded 0 or more) in the qrels; a chunk outside the pool
counts as not relevant, as in TREC. Where a question has gold, the judge's agreement with it is
Cohen's kappa over its pooled pairs (relevant: grade > 0; gold: one of its gold chunks).
"""
from __future__ import annotations

import re

GRADES = (0, 1, 2, 3)
GRADE = re.compile(r"\s*(?:grade\s*[:=]?\s*)?([0-3])\s*\.?\s*", re.IGNORECASE)


def pool(runs: list[dict[str, list[str]]], qids: list[str], depth: int) -> dict[str, list[str]]:
    """{qid: the chunks any run ranks in its top `depth`}, rank 1 of every run first."""
    return {q: list(dict.fromkeys(run[q][rank] for rank in range(depth) for run in runs if rank < len(run.get(q, ()))))
            for q in qids}


def fill(template: str, question: str, chunk: dict) -> str:
    return (template.replace("{query}", question).replace("{title}", chunk.get("title", ""))
            .replace("{chunk}", chunk["text"]))


def parse_grade(reply: str) -> int | None:
    """The grade of a reply that is one digit 0-3 (a `grade:` before it and a full stop after it
    allowed), else None."""
    match = GRADE.fullmatch(reply)
    return int(match[1]) if match else None


def judged_gold(gold: dict[str, dict], grades: dict[str, dict[str, int]], slug_of: dict[str, str]) -> dict[str, dict]:
    """gold.json's questions with each judged question that has no gold of its own (kind none)
    given its graded qrels: a unit per chunk graded above 0, at its grade, and `judged`, every
    pooled chunk's grade (the qrels' zeros). A question with gold keeps it."""
    out = dict(gold)
    for qid, judged in grades.items():
        g = gold[qid]
        if g["kind"] != "none":
            continue
        relevant = sorted(c for c, grade in judged.items() if grade > 0)
        out[qid] = {**g, "kind": "judged", "units": [{"id": c, "chunks": [c], "grade": judged[c]} for c in relevant],
                    "gold_chunks": relevant, "gold_slugs": list(dict.fromkeys(slug_of[c] for c in relevant)),
                    "gold_slug": slug_of[relevant[0]] if relevant else None, "judged": dict(sorted(judged.items()))}
    return out


def cohen_kappa(pairs: list[tuple[bool, bool]]) -> float | None:
    """Cohen's kappa of two raters' yes/no over the same items; None when chance agreement is
    total (both say one thing throughout) or there are no items."""
    n = len(pairs)
    if not n:
        return None
    both = sum(a and b for a, b in pairs)
    neither = sum(not a and not b for a, b in pairs)
    a_yes, b_yes = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    chance = a_yes * b_yes + (1 - a_yes) * (1 - b_yes)
    return None if chance == 1 else ((both + neither) / n - chance) / (1 - chance)


def agreement(gold: dict[str, dict], grades: dict[str, dict[str, int]]) -> dict | None:
    """The judge against the gold of the judged questions that have it (located: status ok):
    the pooled pairs counted by (judged relevant, gold) and Cohen's kappa; None without any."""
    pairs = [(grade > 0, c in gold[q]["gold_chunks"]) for q, judged in grades.items()
             if gold[q]["kind"] != "none" and gold[q]["gold_chunks"] for c, grade in judged.items()]
    if not pairs:
        return None
    count = {"both": sum(j and g for j, g in pairs), "judge_only": sum(j and not g for j, g in pairs),
             "gold_only": sum(g and not j for j, g in pairs), "neither": sum(not j and not g for j, g in pairs)}
    kappa = cohen_kappa(pairs)
    return {"questions": sum(1 for q in grades if gold[q]["kind"] != "none" and gold[q]["gold_chunks"]),
            "pairs": len(pairs), **count, "kappa": None if kappa is None else round(kappa, 4)}
