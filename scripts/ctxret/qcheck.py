"""qcheck: find each question's gold chunk — the chunk whose T1 text holds the whole passage.

Reports per set: gold document missing, passage missing, passage across a chunk boundary,
several gold chunks; and for gap sets, whether the key terms sit outside the gold chunk.
"""
from __future__ import annotations

from collections import defaultdict

from .errors import InputError
from .fileio import read_jsonl, write_json
from .questions import content_sha256, where
from .variants import t1_text

LABELS = {"missing_doc": "gold document missing", "missing_passage": "passage missing",
          "across_boundary": "passage across a chunk boundary"}
PROBLEMS = tuple(LABELS)


def locate(question: dict, doc_bodies: dict[str, str], chunks_by_slug: dict[str, list[dict]]) -> dict:
    """{status, gold_chunks} for one question."""
    slug, passage = question["gold_slug"], question["gold_passage"]
    if slug not in doc_bodies:
        return {"status": "missing_doc", "gold_chunks": []}
    gold = [c["chunk_id"] for c in chunks_by_slug[slug] if passage in t1_text(c)]
    if gold:
        return {"status": "ok", "gold_chunks": gold}
    if passage in doc_bodies[slug]:
        return {"status": "across_boundary", "gold_chunks": []}
    return {"status": "missing_passage", "gold_chunks": []}


def gap_violation(question: dict, gold_chunks: list[str], chunks_by_slug: dict[str, list[dict]]) -> str | None:
    """Why a gap question fails its automatic check, or None."""
    terms = question["key_terms"]
    if not terms:
        return "no key_terms given"
    texts = {c["chunk_id"]: t1_text(c) for c in chunks_by_slug.get(question["gold_slug"], [])}
    in_gold = [t for t in terms if any(t in texts[g] for g in gold_chunks)]
    if in_gold:
        return f"gold chunk contains {in_gold}"
    if not any(t in text for cid, text in texts.items() if cid not in gold_chunks for t in terms):
        return "no other chunk of the document contains the key terms"
    return None


def check(questions: list[dict], docs: list[dict], chunks: list[dict], gap_sets: list[str]) -> dict:
    bodies = {d["slug"]: d["body"] for d in docs}
    by_slug: dict[str, list[dict]] = defaultdict(list)
    for c in chunks:
        by_slug[c["slug"]].append(c)
    results = {}
    for q in questions:
        found = locate(q, bodies, by_slug)
        if q["set"] in gap_sets and found["status"] == "ok":
            found["gap_violation"] = gap_violation(q, found["gold_chunks"], by_slug)
        results[q["id"]] = found
    return results


def summary_lines(questions: list[dict], results: dict, gap_sets: list[str]) -> list[str]:
    lines = []
    for set_name in dict.fromkeys(q["set"] for q in questions):
        qs = [q for q in questions if q["set"] == set_name]
        ids = {p: [q["id"] for q in qs if results[q["id"]]["status"] == p] for p in PROBLEMS}
        several = [q["id"] for q in qs if len(results[q["id"]]["gold_chunks"]) > 1]
        lines.append(f"{set_name} {len(qs)}: gold document missing {len(ids['missing_doc'])}, "
                     f"passage missing {len(ids['missing_passage'])}, "
                     f"across a chunk boundary {len(ids['across_boundary'])} {ids['across_boundary']}, "
                     f"several gold chunks {len(several)} {several}")
    gap = [q for q in questions if q["set"] in gap_sets and results[q["id"]].get("gap_violation")]
    lines.append(f"gap-set automatic check violations {len(gap)}"
                 + "".join(f"\n  {q['id']}: {results[q['id']]['gap_violation']}" for q in gap))
    return lines


def run(input, output, params, **_) -> None:
    questions = read_jsonl(input.questions)
    results = check(questions, read_jsonl(input.docs), read_jsonl(input.chunks), list(params.gap_sets))
    for line in summary_lines(questions, results, list(params.gap_sets)):
        print(line)
    paths = {q["set"]: q["file"] for q in questions}
    files = {s: {"path": path, "content_sha256": content_sha256(questions, s)} for s, path in paths.items()}
    bad = [q for q in questions if results[q["id"]]["status"] != "ok"]
    if bad and params.strict:
        raise InputError("questions without a single gold chunk:\n" + "\n".join(
            f"  {where(q)}: {q['id']}: {LABELS[results[q['id']]['status']]}" for q in bad))
    gold = {q["id"]: {"set": q["set"], "question": q["question"], "gold_slug": q["gold_slug"],
                      **results[q["id"]]} for q in questions}
    write_json(output.gold, {"files": files, "questions": gold})
