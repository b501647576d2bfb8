"""Importers: every corpus format into docs.jsonl records, every question-set format into
question records; the workflow downstream reads only those (there is no second pipeline).

Corpus formats (`corpus.format`): manifests, squad, beir, chunked, table, files. Question-set formats
(a set's `format`): jsonl (ctxret's own), generated (written by questions_generate), squad and beir
(from corpus.path), table. A new format
is a module here and one entry in CORPUS_FORMATS or SET_FORMATS (the schema's enums are filled
in from them). What every set shares happens in `read_set`: ids for a set without them
(`rows`), chunk gold given as (document, chunk) pairs (`chunkpairs`), then the drops and the
sample. Which documents a run keeps is `selection`. May import text, languages and the shared
leaves.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ctxret.errors import InputError
from ctxret.fileio import canonical_json, iter_jsonl
from ctxret.importers import beir, chunked, chunkpairs, files, jsonl, manifests, squad, table
from ctxret.importers.rows import location, numbered  # noqa: F401 (location: ctxret.questions.sets reads it here)
from ctxret.text.documents import select

# Each record format's own field names, what an empty corpus.columns entry stands for (table:
# no title column; chunked: a chunk's chunk_id, text and section; no chunk_index: a chunk's position).
FIELDS = {"table": {"id": "id", "text": "text", "title": ""},
          "beir": {"id": "_id", "text": "text", "title": "title"},
          "chunked": {"id": "id", "title": "title", "tags": "tags", "chunks": "chunks", "chunk_id": "id",
                      "text": "text", "section": "section", "chunk_index": ""}}


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


def set_problem(spec: dict, corpus: dict) -> str | None:
    """What is wrong with a question set's settings for this corpus, if anything."""
    if (spec["format"] == "generated") != ("generate" in spec):
        return "a generated set is {generate: {n: ...}} (its format: generated), and only it has a 'generate'"
    if SET_FORMATS[spec["format"]].from_corpus:
        if corpus["format"] != spec["format"]:
            return f"a {spec['format']} set comes from corpus.path, but corpus.format is {corpus['format']!r}"
        if spec.get("path"):
            return f"a {spec['format']} set is read from corpus.path; remove its 'path'"
    elif not spec.get("path"):
        return f"a {spec['format']} set needs a 'path'"
    return None


def gold_of(row: dict) -> str:
    return canonical_json({f: row.get(f) for f in ("gold_slug", "gold_doc", "gold_passage", "gold_chunks", "gold_docs",
                                               "gold_any")})


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
    """The raw question records of one set (each with file and line, an id and chunk pairs
    resolved) and report lines. Imported sets drop a question repeating another's text and gold
    (reported); a JSONL set keeps every line."""
    problem = set_problem(spec, corpus)
    if problem:
        raise InputError(f"config questions.sets.{name}: {problem}")
    fmt = spec["format"]
    rows, dropped = SET_FORMATS[fmt].read(spec, corpus)
    read = len(rows) + sum(dropped.values())  # the importer's own drops happened while reading
    rows = chunkpairs.resolve(numbered(name, spec, rows), corpus, fields)
    if fmt != "jsonl":
        rows, repeated = drop_repeated_texts(rows)
        dropped.update(repeated)
    report = [drop_report(read, dropped, len(rows))] if fmt != "jsonl" else []
    if 0 < spec["sample"] < len(rows):
        chosen = set(random.Random(spec["seed"]).sample(range(len(rows)), spec["sample"]))
        report.append(f"a seeded sample (seed {spec['seed']}) of {spec['sample']} of {len(rows)} questions")
        rows = [r for i, r in enumerate(rows) if i in chosen]
    return rows, report


# ---- the registries: one entry per format --------------------------------------------------

@dataclass(frozen=True)
class CorpusFormat:
    read: Callable[[dict], tuple[list[dict], list[str]]]  # corpus settings -> documents in source order,
    #                                                        and log lines on the files it left out
    files: Callable[[dict], list[str]] = lambda corpus: [corpus["path"]]  # what prep depends on


def _every_record(read: Callable[[dict], list[dict]]) -> Callable[[dict], tuple[list[dict], list[str]]]:
    """A format that reads every record or stops with an error: nothing left out to report."""
    return lambda corpus: (read(corpus), [])


@dataclass(frozen=True)
class SetFormat:
    read: Callable[[dict, dict], tuple[list[dict], Counter]]  # (set, corpus) -> question records, drops
    files: Callable[[dict, dict], list[str]] = lambda spec, corpus: [spec["path"]]
    from_corpus: bool = False  # read from corpus.path, which must have this format


def _manifest_files(corpus: dict) -> list[str]:
    path = Path(corpus["path"])
    if not path.is_dir():
        return [str(path)]
    return [str(p) for p in sorted(path.iterdir()) if p.is_file() and not p.name.startswith(".")]


def _squad_questions(spec: dict, corpus: dict) -> tuple[list[dict], Counter]:
    articles = squad.load(corpus["path"])
    kept = select(squad.documents(articles, corpus["path"]), corpus["exclude_tags"], corpus["min_chars"],
                  corpus["sample"], corpus["seed"])
    rows, dropped = squad.questions(articles, corpus["path"], {d["slug"] for d in kept})
    return [{**r, "file": corpus["path"], "line": None} for r in rows], dropped


# What a generated question's record says beside a question's fields (stages/questions_generate.py)
GENERATED_FIELDS = ("generated", "kind", "source_chunk", "overlap")


def _generated_questions(spec: dict, _) -> tuple[list[dict], Counter]:
    """A generated set; with review: required, only the questions its review file marks accepted."""
    rows, dropped = jsonl.read_questions(spec["path"], {}, GENERATED_FIELDS), Counter()
    if spec["generate"]["review"] == "required":
        marks = review_marks(spec["generate"]["review_file"])
        dropped.update("rejected in review" if marks.get(r["id"]) is False else "not reviewed"
                       for r in rows if marks.get(r["id"]) is not True)
        rows = [r for r in rows if marks.get(r["id"]) is True]
    return rows, dropped


def review_marks(path: str) -> dict[str, bool | None]:
    """{question id: accepted} of a review file (accepted true, false, or null: not yet reviewed);
    none before the file is written."""
    if not Path(path).is_file():
        return {}
    marks = {}
    for lineno, obj in iter_jsonl(path):
        if not isinstance(obj.get("id"), str) or obj.get("accepted") not in (True, False, None):
            raise InputError(f"{path}:{lineno}: a review line is {{id, accepted: true | false | null, ...}}")
        marks[obj["id"]] = obj["accepted"]
    return marks


def _generated_files(spec: dict, _) -> list[str]:
    review = [spec["generate"]["review_file"]] if spec["generate"]["review"] == "required" else []
    return [spec["path"], *review]


CORPUS_FORMATS: dict[str, CorpusFormat] = {
    "manifests": CorpusFormat(_every_record(lambda c: manifests.read_corpus(c["path"])), _manifest_files),
    "squad": CorpusFormat(_every_record(lambda c: squad.documents(squad.load(c["path"]), c["path"]))),
    "beir": CorpusFormat(_every_record(lambda c: beir.read_corpus(c["path"], fields(c))),
                         lambda c: [str(Path(c["path"]) / "corpus.jsonl")]),
    "chunked": CorpusFormat(_every_record(lambda c: chunked.read_corpus(c["path"], fields(c)))),
    "table": CorpusFormat(_every_record(lambda c: table.read_corpus(c["path"], fields(c)))),
    "files": CorpusFormat(lambda c: files.read_corpus(c["path"], c["follow_links_out"],
                                                      c["html"]["content_selector"]),
                          lambda c: files.input_files(Path(c["path"]), c["follow_links_out"])),
}
SET_FORMATS: dict[str, SetFormat] = {
    "jsonl": SetFormat(lambda spec, _: (jsonl.read_questions(spec["path"], spec["columns"]), Counter())),
    # a generated set (questions.sets.<name>.generate): the JSONL the stage questions_generate wrote
    "generated": SetFormat(_generated_questions, _generated_files),
    "squad": SetFormat(_squad_questions, lambda spec, corpus: [corpus["path"]], from_corpus=True),
    "beir": SetFormat(lambda spec, corpus: beir.read_questions(corpus["path"], spec["split"], fields(corpus)),
                      lambda spec, corpus: [str(Path(corpus["path"]) / "queries.jsonl"),
                                            str(Path(corpus["path"]) / "qrels" / f"{spec['split']}.tsv")],
                      from_corpus=True),
    "table": SetFormat(lambda spec, _: (table.read_questions(spec["path"], spec["columns"]), Counter()),
                       lambda spec, corpus: [spec["path"], *(corpus_files(corpus) if table.has_pairs(spec) else [])]),
}


def import_corpus(corpus: dict) -> tuple[list[dict], list[str]]:
    """Every document of the corpus (docs-all.jsonl), in source order, and the log lines on the
    files the format left out (format files: each skipped file and why)."""
    return CORPUS_FORMATS[corpus["format"]].read(corpus)


def read_corpus(corpus: dict) -> list[dict]:
    """Every document of the corpus (docs-all.jsonl), in source order."""
    return import_corpus(corpus)[0]


def corpus_files(corpus: dict) -> list[str]:
    """The files the corpus is read from (what prep depends on)."""
    return CORPUS_FORMATS[corpus["format"]].files(corpus)


def set_files(spec: dict, corpus: dict) -> list[str]:
    """The files a question set is read from (a BEIR set also checks its qrels against the
    corpus's ids; a change there reaches qcheck through docs.jsonl)."""
    return SET_FORMATS[spec["format"]].files(spec, corpus)
