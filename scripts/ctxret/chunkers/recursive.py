"""recursive: the body split by ever finer separators until every piece fits `tokens` tokens of
a model's tokenizer (sections, then paragraphs, sentences, words, characters), then the pieces
merged in order into chunks of at most `tokens` tokens; each chunk after the first starts with
the last pieces of the one before that fit in `overlap` tokens (the playbook: 512, 10-20 %)."""
from __future__ import annotations

import re

from ctxret.text.chunk_text import blocks, sentence_spans
from ctxret.text.documents import unit_at, units_of

WORD = re.compile(r"\S+\s*")


def _paragraphs(body: str, a: int, b: int) -> list[tuple[int, int]]:
    return [(x.start, x.end) for x in blocks(body[:b]) if x.start >= a]


def _words(body: str, a: int, b: int) -> list[tuple[int, int]]:
    return [(a + m.start(), a + m.start() + len(m.group().rstrip())) for m in WORD.finditer(body[a:b])]


def _characters(body: str, a: int, b: int, fits) -> list[tuple[int, int]]:
    """The longest prefixes that fit, one after another (a word too long on its own)."""
    out = []
    while a < b:
        lo, hi = a + 1, b
        while lo < hi:  # the longest end with body[a:end] fitting
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if fits(a, mid) else (lo, mid - 1)
        out.append((a, lo))
        a = lo
    return out


def pieces(body: str, a: int, b: int, fits, splitters) -> list[tuple[int, int]]:
    """Spans of [a, b) that each fit: split by the first separator that splits it, each part
    again by the finer ones; characters last."""
    if fits(a, b):
        return [(a, b)]
    for i, split in enumerate(splitters):
        parts = [(x, y) for x, y in split(body, a, b) if body[x:y].strip()]
        if len(parts) > 1 or (parts and parts[0] != (a, b)):
            return [p for x, y in parts for p in pieces(body, x, y, fits, splitters[i + 1:])]
    return _characters(body, a, b, fits)


def spans(doc: dict, settings: dict, tools) -> list[dict]:
    body = doc["body"]
    limit, overlap = int(settings["tokens"]), int(settings["overlap"])
    counted: dict[tuple[int, int], int] = {}

    def tokens(a: int, b: int) -> int:
        if (a, b) not in counted:
            counted[a, b] = tools.count_tokens([body[a:b]])[0]
        return counted[a, b]

    units = units_of(doc)
    atoms = [p for u in units for p in pieces(body, u["start"], u["end"], lambda a, b: tokens(a, b) <= limit,
                                              [_paragraphs, sentence_spans, _words])]
    chunks: list[tuple[int, int]] = []
    first = 0  # index of the first atom of the chunk being built
    while first < len(atoms):
        last = first
        while last + 1 < len(atoms) and tokens(atoms[first][0], atoms[last + 1][1]) <= limit:
            last += 1
        chunks.append((atoms[first][0], atoms[last][1]))
        if last + 1 == len(atoms):
            break
        back = last + 1  # the next chunk repeats the last atoms that fit in `overlap`
        while back - 1 > first and tokens(atoms[back - 1][0], atoms[last][1]) <= overlap \
                and tokens(atoms[back - 1][0], atoms[last + 1][1]) <= limit:
            back -= 1
        first = back
    return [{"section": unit_at(units, a)["section"], "start": a, "end": b} for a, b in chunks]
