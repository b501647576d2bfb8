"""table: a corpus table and a question table, each a parquet, CSV or JSON Lines file (by suffix),
read with pyarrow; their column names are configured (corpus.columns, a set's columns).

Corpus: id, text, optional title, metadata columns. Questions: id (without an `id` column, or
with `columns.id` empty, each is `<set>:<row>`: ctxret.importers.rows), question, and gold_docs,
a list of document ids or a list of groups (lists) of them (a list column, or in CSV a JSON
array or one id); or, when `columns.gold_chunk_pairs` names a column, [document id, chunk index
or chunk id] pairs (ctxret.importers.chunkpairs; in CSV a JSON array).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from ctxret.errors import InputError
from ctxret.fileio import read_text
from ctxret.text.documents import document, safe_slug, unique_slugs

READERS = {".parquet": "parquet", ".csv": "csv", ".jsonl": "json", ".json": "json"}


def read_table(path: str, columns: list[str], optional: tuple[str, ...] = ()) -> list[dict]:
    """Rows as dicts of the named columns (and of those `optional` ones the table has); one clear
    error for a missing file or column."""
    kind = READERS.get(Path(path).suffix.lower())
    if kind is None:
        raise InputError(f"{path}: unknown table type (use {', '.join(READERS)})")
    if not Path(path).is_file():
        raise InputError(f"{path}: file not found")
    if kind != "parquet":
        read_text(path)   # undecodable bytes named by line first: pyarrow's CSV reader keeps them as bytes
    import pyarrow as pa
    import pyarrow.csv
    import pyarrow.json
    import pyarrow.parquet
    try:
        table = {"parquet": pa.parquet.read_table, "csv": pa.csv.read_csv, "json": pa.json.read_json}[kind](path)
    except (pa.ArrowInvalid, OSError) as e:
        raise InputError(f"{path}: cannot read it as {kind} ({e})") from None
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise InputError(f"{path}: no column {', '.join(map(repr, missing))} "
                         f"(columns: {', '.join(table.column_names)})")
    return table.select(list(dict.fromkeys([*columns, *(c for c in optional if c in table.column_names)]))).to_pylist()


def _cell(row: dict, column: str, where: str) -> str:
    """A cell as text: "" for an empty one (null, NaN, blank); a list or mapping is refused, not
    stringified."""
    value = row[column]
    if isinstance(value, (list, dict)):
        raise InputError(f"{where}: column {column!r} holds a {type(value).__name__}, not text; "
                         f"name a column of strings")
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value) if str(value).strip() else ""


def _text(row: dict, column: str, where: str) -> str:
    value = _cell(row, column, where)
    if not value:
        raise InputError(f"{where}: column {column!r} is empty")
    return value


def read_corpus(path: str, columns: dict) -> list[dict]:
    names = [columns["id"], columns["text"], *([columns["title"]] if columns["title"] else []),
             *columns["metadata"]]
    docs = []
    for i, row in enumerate(read_table(path, list(dict.fromkeys(names))), 1):
        where = f"{path}: row {i}"
        doc_id = _text(row, columns["id"], where)
        title = _cell(row, columns["title"], where).strip() if columns["title"] else ""   # empty: T1 without a title line
        meta = {"id": doc_id, **{c: row[c] for c in columns["metadata"]}}
        docs.append(document(safe_slug(doc_id), title, _text(row, columns["text"], where).strip(), meta=meta))
    if not docs:
        raise InputError(f"{path}: the corpus is empty")
    unique_slugs(docs, path)
    return docs


def _ids(value) -> list[str] | None:
    ok = isinstance(value, list) and value and all(isinstance(x, (str, int)) and str(x).strip() for x in value)
    return [str(x).strip() for x in value] if ok else None


def _from_json(value, where: str, name: str):
    """A CSV cell holding a JSON array as the array; any other value as it is."""
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            raise InputError(f"{where}: {name} is not a JSON array: {value!r}") from None
    return value


def gold_ids(value, where: str) -> list[str] | list[list[str]]:
    """A list of document ids (every one needed), or a list of groups of them (every group
    needed, any member satisfies it: AutoRAG's `retrieval_gt`); in CSV a JSON array or one id."""
    value = _from_json(value, where, "gold_docs")
    if isinstance(value, (str, int)):
        value = [value]
    if isinstance(value, list) and value and all(isinstance(g, list) for g in value):
        groups = [_ids(g) for g in value]
        if all(groups):
            return groups
    elif _ids(value):
        return _ids(value)
    raise InputError(f"{where}: gold_docs must be a non-empty list of document ids, or of groups (lists) "
                     f"of them, got {value!r}")


def slugs_of(gold: list) -> dict | list[list[str]]:
    """Gold ids as slugs: a flat list as {slug: 1}, groups as groups."""
    if isinstance(gold[0], list):
        return [[safe_slug(d) for d in g] for g in gold]
    return {safe_slug(d): 1 for d in gold}


def has_pairs(spec: dict) -> bool:
    """Whether a table set's gold is chunk pairs (then it is read with the corpus file)."""
    return bool(spec["columns"].get("gold_chunk_pairs"))


def read_questions(path: str, columns: dict) -> list[dict]:
    """The questions, each with its row number; the id column `id` may be absent (no ids)."""
    id_column, pairs = columns["id"], columns.get("gold_chunk_pairs")
    gold = pairs or columns["gold_docs"]
    named = [*([id_column] if id_column not in ("", "id") else []), columns["question"], gold]
    out = []
    for i, row in enumerate(read_table(path, named, optional=("id",) if id_column == "id" else ()), 1):
        where = f"{path}: row {i}"
        out.append({**({"id": _text(row, id_column, where)} if id_column in row else {}),
                    "question": _text(row, columns["question"], where).strip(),
                    **({"gold_chunk_pairs": _from_json(row[gold], where, pairs)} if pairs
                       else {"gold_docs": slugs_of(gold_ids(row[gold], where))}),
                    "file": path, "line": None, "record": f"row {i}", "row": i})
    return out
