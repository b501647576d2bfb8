"""semantic: a document's sentences (headings count as one), a break after every sentence whose
embedding distance (1 - cosine) to the next exceeds the `percentile`-th percentile of the
document's distances; each run of sentences between breaks is a chunk."""
from __future__ import annotations

import numpy as np

from ctxret.text.chunk_text import blocks, sentence_spans
from ctxret.text.documents import unit_at, units_of


def breaks(vectors: np.ndarray, percentile: float) -> list[int]:
    """Indices i after which a chunk ends: distance(i, i + 1) above the percentile."""
    if len(vectors) < 2:
        return []
    v = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    distance = 1.0 - np.sum(v[:-1] * v[1:], axis=1)
    threshold = np.percentile(distance, percentile)
    return [i for i, d in enumerate(distance) if d > threshold]


def spans(doc: dict, settings: dict, tools) -> list[dict]:
    body, units = doc["body"], units_of(doc)
    sentences = [s for b in blocks(body) for s in sentence_spans(body, b.start, b.end)]
    ends = set(breaks(tools.embed([body[a:b] for a, b in sentences]), float(settings["percentile"])))
    out, first = [], 0
    for i, (a, b) in enumerate(sentences):
        if i in ends or i == len(sentences) - 1:
            start = sentences[first][0]
            out.append({"section": unit_at(units, start)["section"], "start": start, "end": b})
            first = i + 1
    return out
