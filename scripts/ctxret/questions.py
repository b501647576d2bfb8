"""Question files: `{id, question, gold_slug, gold_passage}` per line, ids unique across sets."""
from __future__ import annotations

import re
from pathlib import Path

from .errors import InputError
from .fileio import iter_jsonl

REQUIRED = ("id", "question", "gold_slug", "gold_passage")


def load_question_sets(sets: dict[str, str]) -> list[dict]:
    """Every question of every set, in config order, each with its set, file and line."""
    out: list[dict] = []
    seen: dict[str, str] = {}
    for set_name, path in sets.items():
        for lineno, obj in iter_jsonl(path):
            where = f"{path}:{lineno}"
            for field in REQUIRED:
                if not isinstance(obj.get(field), str) or not obj[field].strip():
                    raise InputError(f"{where}: field {field!r} is missing or empty")
            key_terms = obj.get("key_terms", [])
            if not isinstance(key_terms, list) or not all(isinstance(t, str) and t for t in key_terms):
                raise InputError(f"{where}: 'key_terms' must be a list of non-empty strings")
            qid = obj["id"]
            if qid in seen:
                raise InputError(f"{where}: duplicate question id {qid!r} (first at {seen[qid]})")
            seen[qid] = where
            out.append({"id": qid, "set": set_name, "question": obj["question"],
                        "gold_slug": obj["gold_slug"], "gold_passage": obj["gold_passage"],
                        "key_terms": key_terms, "file": str(Path(path)), "line": lineno})
    if not out:
        raise InputError("no questions in " + ", ".join(sets.values()))
    return out


def cluster_of(qid: str, pattern: str) -> str:
    """The cluster key of a question id (default: its number, so h07 and p07 pair)."""
    m = re.search(pattern, qid)
    return (m.group(0).lstrip("0") or "0") if m else qid
