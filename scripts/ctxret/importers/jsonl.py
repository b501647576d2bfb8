"""jsonl: ctxret's own question sets, one JSON object a line (see ctxret.questionset), or a
benchmark's file of that shape with other field names, which the set's `columns` map to ctxret's:
the Anthropic cookbook's `{"query", "golden_chunk_uuids"}` is read with
`columns: {question: query, gold_chunk_pairs: golden_chunk_uuids}`.
"""
from __future__ import annotations

from ..fileio import iter_jsonl

# The ctxret fields a set's `columns` may map (what the schema lists).
MAPPED = ("id", "question", "gold_docs", "gold_chunk_pairs")


def renamed(obj: dict, columns: dict) -> dict:
    """A record under ctxret's names: a mapped field read from the file's name for it (a field
    of the file under ctxret's name is then not read); an empty `id` reads no id at all."""
    names = {k: columns[k] for k in MAPPED if columns.get(k) and columns[k] != k}
    out = {k: v for k, v in obj.items() if k not in names and not (k == "id" and columns.get("id") == "")}
    out.update((k, obj[v]) for k, v in names.items() if v in obj)
    return out


def read_questions(path: str, columns: dict) -> list[dict]:
    return [{**renamed(obj, columns), "file": path, "line": lineno} for lineno, obj in iter_jsonl(path)]
