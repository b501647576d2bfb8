"""Question files: `{id, question, gold_slug, gold_passage}` per line, ids unique across sets.

The `questions` stage rewrites every set into one canonical file (one spelling per question,
in config order) that everything downstream reads. The workflow reruns that stage when the
sets' content hashes (`fingerprint`, read when the workflow is parsed) change, not when a file
is only touched or reformatted: then nothing reruns at all.
"""
from __future__ import annotations

import re
from pathlib import Path

from .errors import InputError
from .fileio import canonical_json, iter_jsonl, sha256_file, sha256_text, write_text

REQUIRED = ("id", "question", "gold_slug", "gold_passage")
CANONICAL = ("id", "set", "question", "gold_slug", "gold_passage", "key_terms", "file")


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


def canonical_lines(questions: list[dict]) -> str:
    """The canonical text of questions: what they say, not where or how it is spelled."""
    return "".join(canonical_json({k: q[k] for k in CANONICAL}) + "\n" for q in questions)


def content_sha256(questions: list[dict], set_name: str) -> str:
    """A set's content hash: equal for any reformatting of its file."""
    return sha256_text(canonical_lines([q for q in questions if q["set"] == set_name]))


def fingerprint(sets: dict[str, str]) -> dict[str, str]:
    """{set: content hash}; a set that does not load hashes its file's bytes instead (or
    'missing'), so any change to it reruns the stage, which then names the problem."""
    try:
        questions = load_question_sets(sets)
        return {name: content_sha256(questions, name) for name in sets}
    except InputError:
        return {name: sha256_file(path) if Path(path).is_file() else "missing" for name, path in sets.items()}


def where(question: dict) -> str:
    """`file:line` of a question in its source file as it is now (for messages)."""
    try:
        for lineno, obj in iter_jsonl(question["file"]):
            if obj.get("id") == question["id"]:
                return f"{question['file']}:{lineno}"
    except InputError:  # edited since: the file alone
        pass
    return question["file"]


def run(input, output, params, **_) -> None:
    """The `questions` stage: validate every set and write the canonical file."""
    questions = load_question_sets(dict(params.sets))
    write_text(output.questions, canonical_lines(questions))
    for set_name, path in dict(params.sets).items():
        n = sum(1 for q in questions if q["set"] == set_name)
        print(f"set {set_name}: {n} questions from {path}, file sha256 {sha256_file(path)}, "
              f"content sha256 {content_sha256(questions, set_name)}")


def cluster_of(qid: str, pattern: str) -> str:
    """The cluster key of a question id (default: its number, so h07 and p07 pair)."""
    m = re.search(pattern, qid)
    return (m.group(0).lstrip("0") or "0") if m else qid
