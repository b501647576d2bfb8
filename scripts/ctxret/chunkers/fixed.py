"""fixed: windows of `size` characters, each starting `size - overlap` after the previous one
(the reference's 200/50); leading and trailing whitespace is trimmed from each window."""
from __future__ import annotations

from ctxret.text.documents import unit_at, units_of


def spans(doc: dict, settings: dict, tools) -> list[dict]:
    body, units = doc["body"], units_of(doc)
    size, overlap = int(settings["size"]), int(settings["overlap"])
    out, start = [], 0
    while start < len(body):
        end = min(start + size, len(body))
        text = body[start:end]
        a, b = start + len(text) - len(text.lstrip()), start + len(text.rstrip())
        if a < b:
            out.append({"section": unit_at(units, a)["section"], "start": a, "end": b})
        if end == len(body):
            break
        start = end - overlap
    return out
