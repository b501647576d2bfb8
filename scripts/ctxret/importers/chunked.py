"""chunked: documents that carry their own chunks, a JSON array or JSON Lines of

    {"id": "doc-1", "title": "...", "tags": [...], "chunks": [{"id": "c-1", "text": "...", "section": "..."}]}

or the same with other field names (corpus.columns). The body is the chunks' texts joined by
blank lines; every chunk is a unit (its id, section and span), and the `given` chunker turns each
unit back into exactly one chunk. Chunk ids are unique across the corpus: questions name them as
gold (`gold_chunks`), or name a document and a chunk's index in it (`gold_chunk_pairs`: its
position, or the chunk field corpus.columns.chunk_index names).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ctxret.errors import InputError
from ctxret.fileio import iter_jsonl, read_json
from ctxret.text.documents import document, joined, safe_slug, unique_slugs


def records(path: str) -> list[tuple[str, dict]]:
    """(where, record) for each document of a .json array or a .jsonl file."""
    if Path(path).suffix == ".jsonl":
        return [(f"{path}:{lineno}", obj) for lineno, obj in iter_jsonl(path)]
    data = read_json(path)
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise InputError(f"{path}: expected a JSON array of documents (or a .jsonl file)")
    return [(f"{path}: document {i}", d) for i, d in enumerate(data)]


def field(rec: dict, name: str, where: str, required: bool = True, default=""):
    """A record's field by its configured name: a missing required one is named with the fields
    the record has (as `table` names a missing column)."""
    if name in rec:
        return rec[name]
    if required:
        raise InputError(f"{where}: no field {name!r} (fields: {', '.join(rec)})")
    return default


def checked(path: str, fields: dict) -> Iterator[tuple[str, dict, str, str, list[tuple[dict, str, str, str]]]]:
    """(where, record, id, title, [(chunk, chunk id, text, section)]) of each document, checked;
    `fields` maps ctxret's names (id, title, tags, chunks; a chunk's chunk_id, text, section) to
    the file's; title and section are optional."""
    f = fields
    seen = {}
    for where, rec in records(path):
        doc_id, chunks = field(rec, f["id"], where), field(rec, f["chunks"], where)
        title = field(rec, f["title"], where, required=False) if f["title"] else ""
        if not isinstance(doc_id, str) or not doc_id.strip():
            raise InputError(f"{where}: field {f['id']!r} must be a non-empty string")
        if not isinstance(title, str) or not isinstance(chunks, list) or not chunks:
            raise InputError(f"{where}: document {doc_id!r} needs a string {f['title']!r} and a non-empty "
                             f"{f['chunks']!r} list")
        parts = []
        for i, c in enumerate(chunks):
            if not isinstance(c, dict):
                raise InputError(f"{where}: document {doc_id!r} chunk {i}: a chunk is a JSON object")
            cid, text = field(c, f["chunk_id"], f"{where}: chunk {i}"), field(c, f["text"], f"{where}: chunk {i}")
            if not isinstance(cid, str) or not cid.strip() or not isinstance(text, str) or not text.strip():
                raise InputError(f"{where}: document {doc_id!r} chunk {i}: needs a non-empty "
                                 f"{f['chunk_id']!r} and {f['text']!r}")
            if cid in seen:
                raise InputError(f"{where}: chunk id {cid!r} repeated (first in document {seen[cid]!r})")
            seen[cid] = doc_id
            section = field(c, f["section"], where, required=False) if f["section"] else ""
            if not isinstance(section, str):
                raise InputError(f"{where}: document {doc_id!r} chunk {cid!r}: {f['section']!r} must be a string")
            parts.append((c, cid, text, section))
        yield where, rec, doc_id, title, parts


def read_corpus(path: str, fields: dict) -> list[dict]:
    """The documents (a document without a title gets no title line in T1, never its id)."""
    f = fields
    docs = []
    for where, rec, doc_id, title, parts in checked(path, f):
        body, units = joined([(text.strip(), {"id": cid, "section": section.strip()})
                              for _, cid, text, section in parts])
        tags = field(rec, f["tags"], where, required=False, default=[]) if f["tags"] else []
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise InputError(f"{where}: field {f['tags']!r} must be a list of strings")
        docs.append(document(safe_slug(doc_id), title.strip(), body, tags=tags, units=units,
                             meta={"id": doc_id}))
    if not docs:
        raise InputError(f"{path}: the corpus is empty")
    unique_slugs(docs, path)
    return docs


def chunk_ids(path: str, fields: dict, wanted: set[str]) -> dict[str, dict[int | str, str]]:
    """For each wanted document id in the corpus: its chunks' ids by index (corpus.columns
    .chunk_index's value, else the chunk's position from 0) and by chunk id."""
    out = {}
    for where, _, doc_id, _, parts in checked(path, fields):
        if doc_id not in wanted:
            continue
        ids = {cid: cid for _, cid, _, _ in parts}
        for i, (c, cid, _, _) in enumerate(parts):
            index = field(c, fields["chunk_index"], f"{where}: chunk {i}") if fields["chunk_index"] else i
            if not isinstance(index, int) or isinstance(index, bool):
                raise InputError(f"{where}: document {doc_id!r} chunk {cid!r}: {fields['chunk_index']!r} "
                                 f"must be an integer")
            if index in ids:
                raise InputError(f"{where}: document {doc_id!r}: two chunks with {fields['chunk_index']!r} {index}")
            ids[index] = cid
        out[doc_id] = ids
    return out
