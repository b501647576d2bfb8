"""jsonl: ctxret's own question sets, one JSON object a line (see ctxret.questions.sets), or a
benchmark's file of that shape with other field names, which the set's `columns` map to ctxret's:
the Anthropic cookbook's `{"query", "golden_chunk_uuids"}` is read with
`columns: {question: query, gold_chunk_pairs: golden_chunk_uuids}`.
"""
from __future__ import annotations

from ctxret.errors import InputError
from ctxret.fileio import iter_jsonl

# The ctxret fields a set's `columns` may map (what the schema lists).
MAPPED = ("id", "question", "gold_docs", "gold_chunk_pairs")
# Every field of a question record (ctxret.questions.sets): a set that maps no field is in this shape.
FIELDS = ("id", "question", "gold_slug", "gold_doc", "gold_passage", "gold_chunks", "gold_docs", "gold_any",
          "gold_chunk_pairs", "key_terms", "cluster")


def renamed(obj: dict, columns: dict) -> dict:
    """A record under ctxret's names: a mapped field read from the file's name for it (a field
    of the file under ctxret's name is then not read); an empty `id` reads no id at all."""
    names = {k: columns[k] for k in MAPPED if columns.get(k) and columns[k] != k}
    out = {k: v for k, v in obj.items() if k not in names and not (k == "id" and columns.get("id") == "")}
    out.update((k, obj[v]) for k, v in names.items() if v in obj)
    return out


def read_questions(path: str, columns: dict, more_fields: tuple[str, ...] = ()) -> list[dict]:
    """The records, each with its file and line; in a set of ctxret's own shape (no field mapped)
    a field that is neither a question's nor one of `more_fields` (what a generated set's records
    also say) is refused (a misspelt one would be ignored)."""
    own = not any(columns.get(k) != k for k in MAPPED if k in columns)
    out = []
    for lineno, obj in iter_jsonl(path):
        unknown = [k for k in obj if k not in FIELDS and k not in more_fields]
        if own and unknown:
            raise InputError(f"{path}:{lineno}: unknown field {unknown[0]!r} (a question's fields: "
                             f"{', '.join((*FIELDS, *more_fields))})")
        out.append({**renamed(obj, columns), "file": path, "line": lineno})
    return out
