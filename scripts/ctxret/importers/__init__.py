"""Importers: every corpus format into docs.jsonl records, every question-set format into
question records; the workflow downstream reads only those (there is no second pipeline).

Corpus formats (`corpus.format`): manifests, squad, beir, chunked, table. Question-set formats
(a set's `format`): jsonl (ctxret's own), squad and beir (from corpus.path), table.
"""
from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from ..documents import select
from ..errors import InputError
from ..fileio import canonical_json, iter_jsonl
from . import beir, chunked, manifests, squad, table

CORPUS_FORMATS = ("manifests", "squad", "beir", "chunked", "table")
SET_FORMATS = ("jsonl", "squad", "beir", "table")
FROM_CORPUS = ("squad", "beir")  # sets read from corpus.path, which must have that format
# Each record format's own field names, what an empty corpus.columns entry stands for (table:
# no title column; chunked: a chunk's chunk_id, text and section).
FIELDS = {"table": {"id": "id", "text": "text", "title": ""},
          "beir": {"id": "_id", "text": "text", "title": "title"},
          "chunked": {"id": "id", "title": "title", "tags": "tags", "chunks": "chunks", "chunk_id": "id",
                      "text": "text", "section": "section"}}


def fields(corpus: dict) -> dict:
    """The corpus's field names: corpus.columns over its format's own; a name the format does not
    read is an error."""
    fmt, given = corpus["format"], dict(corpus.get("columns") or {})
    own = FIELDS.get(fmt, {})
    extra = [k for k, v in given.items() if v and k not in own and not (k == "metadata" and fmt == "table")]
    if extra:
        raise InputError(f"config corpus.columns: {', '.join(extra)} not read by format {fmt!r} "
                         f"(its fields: {', '.join(own) or 'none'})")
    return {**own, **{k: v for k, v in given.items() if v and k in own},
            **({"metadata": given.get("metadata", [])} if fmt == "table" else {})}


def read_corpus(corpus: dict) -> list[dict]:
    """Every document of the corpus (docs-all.jsonl), in source order."""
    fmt, path = corpus["format"], corpus["path"]
    if fmt == "manifests":
        return manifests.read_corpus(path)
    if fmt == "squad":
        return squad.documents(squad.load(path), path)
    if fmt == "beir":
        return beir.read_corpus(path, fields(corpus))
    if fmt == "chunked":
        return chunked.read_corpus(path, fields(corpus))
    if fmt == "table":
        return table.read_corpus(path, fields(corpus))
    raise InputError(f"corpus.format {fmt!r} is unknown; choose one of {', '.join(CORPUS_FORMATS)}")


def corpus_files(corpus: dict) -> list[str]:
    """The files the corpus is read from (what prep depends on)."""
    path = Path(corpus["path"])
    if corpus["format"] == "manifests":
        return [str(p) for p in sorted(path.iterdir()) if p.is_file() and not p.name.startswith(".")] \
            if path.is_dir() else [str(path)]
    if corpus["format"] == "beir":
        return [str(path / "corpus.jsonl")]
    return [str(path)]


def set_files(spec: dict, corpus: dict) -> list[str]:
    """The files a question set is read from (a BEIR set also checks its qrels against the
    corpus's ids; a change there reaches qcheck through docs.jsonl)."""
    if spec["format"] == "squad":
        return [corpus["path"]]
    if spec["format"] == "beir":
        root = Path(corpus["path"])
        return [str(root / "queries.jsonl"), str(root / "qrels" / f"{spec['split']}.tsv")]
    return [spec["path"]]


def set_problem(spec: dict, corpus: dict) -> str | None:
    """What is wrong with a question set's settings for this corpus, if anything."""
    if spec["format"] in FROM_CORPUS:
        if corpus["format"] != spec["format"]:
            return f"a {spec['format']} set comes from corpus.path, but corpus.format is {corpus['format']!r}"
        if spec.get("path"):
            return f"a {spec['format']} set is read from corpus.path; remove its 'path'"
    elif not spec.get("path"):
        return f"a {spec['format']} set needs a 'path'"
    return None


def gold_of(row: dict) -> str:
    return canonical_json({f: row.get(f) for f in ("gold_slug", "gold_passage", "gold_chunks", "gold_docs")})


def drop_repeated_texts(rows: list[dict]) -> tuple[list[dict], Counter]:
    """Imported questions that repeat both the text and the gold of an earlier question of the set
    (the same question twice) are dropped; the same text with another gold is another question."""
    kept, seen, dropped = [], set(), Counter()
    for r in rows:
        key = (r["question"], gold_of(r))
        if key in seen:
            dropped["same text and gold as another question"] += 1
        else:
            seen.add(key)
            kept.append(r)
    return kept, dropped


def drop_report(read: int, dropped: Counter, kept: int) -> str:
    """"N questions read; dropped: <why> n, ...; kept M", where N = M + every drop."""
    reasons = ", ".join(f"{why} {n}" for why, n in dropped.items()) or "none"
    return f"{read} questions read; dropped: {reasons}; kept {kept}"


def read_set(name: str, spec: dict, corpus: dict) -> tuple[list[dict], list[str]]:
    """The raw question records of one set (each with file and line) and report lines.
    Imported sets drop a question repeating another's text and gold (reported); a JSONL set
    keeps every line."""
    problem = set_problem(spec, corpus)
    if problem:
        raise InputError(f"config questions.sets.{name}: {problem}")
    fmt, dropped = spec["format"], Counter()
    if fmt == "jsonl":
        rows = [{**obj, "file": spec["path"], "line": lineno} for lineno, obj in iter_jsonl(spec["path"])]
    elif fmt == "squad":
        articles = squad.load(corpus["path"])
        kept = select(squad.documents(articles, corpus["path"]), corpus["exclude_tags"],
                      corpus["min_chars"], corpus["sample"], corpus["seed"])
        rows, dropped = squad.questions(articles, corpus["path"], {d["slug"] for d in kept})
        rows = [{**r, "file": corpus["path"], "line": None} for r in rows]
    elif fmt == "beir":
        rows, dropped = beir.read_questions(corpus["path"], spec["split"], fields(corpus))
    elif fmt == "table":
        rows = table.read_questions(spec["path"], spec["columns"])
    else:
        raise InputError(f"config questions.sets.{name}: format {fmt!r} is unknown; "
                         f"choose one of {', '.join(SET_FORMATS)}")
    read = len(rows) + sum(dropped.values())  # the importer's own drops happened while reading
    if fmt != "jsonl":
        rows, repeated = drop_repeated_texts(rows)
        dropped.update(repeated)
    report = [drop_report(read, dropped, len(rows))] if fmt != "jsonl" else []
    if 0 < spec["sample"] < len(rows):
        chosen = set(random.Random(spec["seed"]).sample(range(len(rows)), spec["sample"]))
        report.append(f"a seeded sample (seed {spec['seed']}) of {spec['sample']} of {len(rows)} questions")
        rows = [r for i, r in enumerate(rows) if i in chosen]
    return rows, report
