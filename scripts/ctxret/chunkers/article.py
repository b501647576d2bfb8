"""article: one unit per chunk (a `## ` section, a clause, a source paragraph or given chunk);
given: the corpus's own chunks, boundaries exactly the file's."""
from __future__ import annotations

from ctxret.errors import InputError
from ctxret.text.documents import units_of


def spans(doc: dict, settings: dict, tools) -> list[dict]:
    return [{"section": u["section"], "start": u["start"], "end": u["end"]} for u in units_of(doc)]


def given(doc: dict, settings: dict, tools) -> list[dict]:
    if "units" not in doc:
        raise InputError(f"document {doc['slug']!r} has no chunks of its own; the chunker 'given' "
                         f"needs corpus.format chunked (or squad, whose paragraphs it keeps)")
    return spans(doc, settings, tools)
