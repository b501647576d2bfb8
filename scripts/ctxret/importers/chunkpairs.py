"""Chunk-level gold as benchmarks publish it: `gold_chunk_pairs`, a list of [document id, chunk]
pairs (the Anthropic cookbook's `golden_chunk_uuids`). The document id is the corpus's
(corpus.columns.id); the chunk an integer, its index in the document (the chunk field
corpus.columns.chunk_index names, else its position from 0), or a string, its chunk id. The
pairs become `gold_chunks`, the corpus's own chunk ids, so qcheck and score read the usual gold;
a pair naming no document or chunk of the corpus file is an error naming the question's line.
"""
from __future__ import annotations

import json
from typing import Callable

from ctxret.errors import InputError
from ctxret.importers import chunked
from ctxret.importers.rows import location

FIELD = "gold_chunk_pairs"
OTHER_GOLD = ("gold_passage", "gold_chunks", "gold_docs", "gold_any")


def _pairs(row: dict) -> list[list]:
    value = row[FIELD]
    ok = isinstance(value, list) and value and all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and p[0].strip()
        and ((isinstance(p[1], int) and not isinstance(p[1], bool) and p[1] >= 0)
             or (isinstance(p[1], str) and p[1].strip())) for p in value)
    if not ok:
        raise InputError(f"{location(row)}: field {FIELD!r} must be a non-empty list of [document id, chunk index "
                         f"(an integer from 0) or chunk id] pairs, got {_shown(value)}")
    other = [f for f in OTHER_GOLD if f in row]
    if other:
        raise InputError(f"{location(row)}: give exactly one of {', '.join(OTHER_GOLD)}, {FIELD} "
                         f"({FIELD} and {' and '.join(other)} given)")
    return value


def _shown(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def resolve(rows: list[dict], corpus: dict, fields_of: Callable[[dict], dict]) -> list[dict]:
    """The rows with their `gold_chunk_pairs` as `gold_chunks` (pairs naming one chunk twice give
    it once); the corpus file (its field names: `fields_of` the corpus settings) is read only
    when some row has pairs."""
    given = [(r, _pairs(r) if FIELD in r else None) for r in rows]
    with_pairs = [(r, pairs) for r, pairs in given if pairs is not None]
    if not with_pairs:
        return rows
    if corpus.get("format") != "chunked":
        raise InputError(f"{location(with_pairs[0][0])}: {FIELD} name a corpus's own chunks, which only "
                         f"corpus.format 'chunked' has (corpus.format is {corpus.get('format')!r})")
    fields = fields_of(corpus)
    chunks = chunked.chunk_ids(corpus["path"], fields, {doc for _, pairs in with_pairs for doc, _ in pairs})
    out = []
    for r, pairs in given:
        if pairs is not None:
            ids = [_chunk(pair, chunks, corpus["path"], fields, location(r)) for pair in pairs]
            r = {**{k: v for k, v in r.items() if k != FIELD}, "gold_chunks": list(dict.fromkeys(ids))}
        out.append(r)
    return out


def _chunk(pair: list, chunks: dict, path: str, fields: dict, where: str) -> str:
    doc, chunk = pair
    if doc not in chunks:
        raise InputError(f"{where}: {FIELD} {_shown(pair)}: no document {doc!r} in {path} (a document's id is "
                         f"its field {fields['id']!r}: corpus.columns.id)")
    if chunk not in chunks[doc]:
        n = sum(1 for i in chunks[doc] if isinstance(i, int))
        missing = (f"no chunk {chunk!r}" if isinstance(chunk, str)
                   else f"no chunk whose {fields['chunk_index']!r} is {chunk}" if fields["chunk_index"]
                   else f"no chunk {chunk} (its {n} chunks are 0 to {n - 1})")
        raise InputError(f"{where}: {FIELD} {_shown(pair)}: document {doc!r} has {missing}")
    return chunks[doc][chunk]
