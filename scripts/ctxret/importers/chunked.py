"""chunked: documents that carry their own chunks, a JSON array or JSON Lines of

    {"id": "doc-1", "title": "...", "tags": [...], "chunks": [{"id": "c-1", "text": "...", "section": "..."}]}

The body is the chunks' texts joined by blank lines; every chunk is a unit (its id, section and
span), and the `given` chunker turns each unit back into exactly one chunk. Chunk ids are unique
across the corpus: questions name them as gold (`gold_chunks`).
"""
from __future__ import annotations

from pathlib import Path

from ..documents import document, joined, safe_slug, unique_slugs
from ..errors import InputError
from ..fileio import iter_jsonl, read_json


def records(path: str) -> list[tuple[str, dict]]:
    """(where, record) for each document of a .json array or a .jsonl file."""
    if Path(path).suffix == ".jsonl":
        return [(f"{path}:{lineno}", obj) for lineno, obj in iter_jsonl(path)]
    data = read_json(path)
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise InputError(f"{path}: expected a JSON array of documents (or a .jsonl file)")
    return [(f"{path}: document {i}", d) for i, d in enumerate(data)]


def read_corpus(path: str) -> list[dict]:
    docs, seen = [], {}
    for where, rec in records(path):
        doc_id, title, chunks = rec.get("id"), rec.get("title", ""), rec.get("chunks")
        if not isinstance(doc_id, str) or not doc_id.strip():
            raise InputError(f"{where}: field 'id' must be a non-empty string")
        if not isinstance(title, str) or not isinstance(chunks, list) or not chunks:
            raise InputError(f"{where}: document {doc_id!r} needs a string 'title' and a non-empty 'chunks' list")
        parts = []
        for i, c in enumerate(chunks):
            cid = c.get("id") if isinstance(c, dict) else None
            text = c.get("text") if isinstance(c, dict) else None
            if not isinstance(cid, str) or not cid.strip() or not isinstance(text, str) or not text.strip():
                raise InputError(f"{where}: document {doc_id!r} chunk {i}: needs a non-empty 'id' and 'text'")
            if cid in seen:
                raise InputError(f"{where}: chunk id {cid!r} repeated (first in document {seen[cid]!r})")
            seen[cid] = doc_id
            section = c.get("section", "")
            if not isinstance(section, str):
                raise InputError(f"{where}: document {doc_id!r} chunk {cid!r}: 'section' must be a string")
            parts.append((text.strip(), {"id": cid, "section": section.strip()}))
        body, units = joined(parts)
        tags = rec.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise InputError(f"{where}: field 'tags' must be a list of strings")
        docs.append(document(safe_slug(doc_id), title.strip(), body, tags=tags, units=units,
                             meta={"id": doc_id}))
    if not docs:
        raise InputError(f"{path}: the corpus is empty")
    unique_slugs(docs, path)
    return docs
