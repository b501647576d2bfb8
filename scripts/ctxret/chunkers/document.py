"""document: one chunk per document, the whole body, no section (document-retrieval benchmarks
such as BEIR). The model truncates or windows a long document as its slot declares (tokens.json
counts the texts over its limit)."""
from __future__ import annotations


def spans(doc: dict, settings: dict, tools) -> list[dict]:
    body = doc["body"]
    return [{"section": "", "start": len(body) - len(body.lstrip()), "end": len(body.rstrip())}]
