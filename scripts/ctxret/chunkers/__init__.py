"""Chunkers: one document -> chunk spans [{section, start, end}] of its body.

None crosses a document; together a document's chunks cover every non-space character of it;
a chunk's section is that of the unit it starts in (ctxret.text.documents.units_of), so title and
section reach every strategy the same way (T1). Strategies differ only in boundaries:

- paragraph: paragraphs packed up to max_chars within a `## ` section (ctxret's default)
- fixed: windows of `size` characters, each starting `size - overlap` after the previous one
- recursive: sections, then paragraphs, sentences and characters, merged up to `tokens`
  tokens of a model's tokenizer, each chunk repeating up to `overlap` tokens of the previous one
- semantic: sentences, broken where the embedding distance of neighbours exceeds the
  `percentile`-th percentile of the document's distances
- article: one unit per chunk (a `## ` section, a clause of a regulation, a source paragraph)
- given: the corpus's own chunks (format chunked)
- document: the whole document as one chunk (document-retrieval benchmarks)

A new strategy is a module here with `spans(doc, settings, tools)` and a line in CHUNKERS; its
settings (if any) live under `chunking.<name>` in config/schema.yaml, and reach `spans` as they are.
A corpus cut into numbered, named chunks: `corpus.chunk_rows`.
May import text and the shared leaves.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ctxret.chunkers import article, document, fixed, paragraph, recursive, semantic


@dataclass(frozen=True)
class Strategy:
    spans: Callable             # (doc, settings, tools) -> [{section, start, end}]
    model_key: str | None = None  # the setting naming the model slot it reads (empty: pairs.dense)
    needs: str | None = None    # what it calls of that model: "tokens" (counts) or "vectors"
    notes: Callable[[list[dict], dict], list[str]] = lambda docs, settings: []  # log lines on how it cut a corpus


CHUNKERS: dict[str, Strategy] = {
    "paragraph": Strategy(paragraph.spans, notes=paragraph.notes),
    "fixed": Strategy(fixed.spans),
    "recursive": Strategy(recursive.spans, "tokenizer", "tokens"),
    "semantic": Strategy(semantic.spans, "model", "vectors"),
    "article": Strategy(article.spans),
    "given": Strategy(article.given),
    "document": Strategy(document.spans),
}


@dataclass
class Tools:
    """What a model-based strategy calls: token counts of texts, unit vectors of texts."""
    count_tokens: Callable[[list[str]], list[int]] | None = None
    embed: Callable[[list[str]], np.ndarray] | None = None


def spans(doc: dict, chunker: str, settings: dict, tools: Tools) -> list[dict]:
    return CHUNKERS[chunker].spans(doc, settings, tools)
