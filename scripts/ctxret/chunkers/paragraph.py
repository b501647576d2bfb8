"""paragraph: paragraphs packed up to max_chars, never across a `## ` section; a paragraph longer
than that is split at sentence ends (a sentence still too long is cut hard). Fenced code
blocks count as one paragraph, and `## ` inside them is not a heading."""
from __future__ import annotations

from ctxret.text.chunk_text import Block, blocks, sentence_spans


def split_long(body: str, block: Block, max_chars: int) -> list[tuple[int, int]]:
    """Spans of pieces of one over-long paragraph, cut at sentence ends where possible."""
    pieces: list[tuple[int, int]] = []
    cur_start = cur_end = None
    for a, b in sentence_spans(body, block.start, block.end):
        while b - a > max_chars:  # a sentence longer than the limit: hard cut
            if cur_start is not None:
                pieces.append((cur_start, cur_end))
                cur_start = None
            pieces.append((a, a + max_chars))
            a += max_chars
        if cur_start is None:
            cur_start, cur_end = a, b
        elif b - cur_start <= max_chars:
            cur_end = b
        else:
            pieces.append((cur_start, cur_end))
            cur_start, cur_end = a, b
    if cur_start is not None:
        pieces.append((cur_start, cur_end))
    return [(a, a + len(body[a:b].rstrip())) for a, b in pieces]


def chunk_document(body: str, max_chars: int) -> list[dict]:
    """[{section, start, end}] for one document body."""
    chunks: list[dict] = []
    section = ""
    cur: list[int] | None = None  # [start, end]

    def flush() -> None:
        nonlocal cur
        if cur is not None:
            chunks.append({"section": section, "start": cur[0], "end": cur[1]})
            cur = None

    for block in blocks(body):
        if block.heading is not None:
            flush()
            section = block.heading
        if block.end - block.start > max_chars:
            flush()
            for a, b in split_long(body, block, max_chars):
                chunks.append({"section": section, "start": a, "end": b})
            continue
        if cur is not None and block.end - cur[0] <= max_chars:
            cur[1] = block.end
        else:
            flush()
            cur = [block.start, block.end]
    flush()
    return chunks


def spans(doc: dict, settings: dict, tools) -> list[dict]:
    return chunk_document(doc["body"], int(settings["max_chars"]))


def long_paragraphs(body: str, max_chars: int) -> int:
    """How many paragraphs of `body` exceed max_chars (each is split at sentence ends)."""
    return sum(1 for b in blocks(body) if b.heading is None and b.end - b.start > max_chars)


def notes(docs: list[dict], settings: dict) -> list[str]:
    long = {d["slug"]: long_paragraphs(d["body"], int(settings["max_chars"])) for d in docs}
    return [f"paragraphs longer than {settings['max_chars']} chars, split at sentence ends: "
            f"{sum(long.values())} (in {sum(1 for n in long.values() if n)} documents)"]
