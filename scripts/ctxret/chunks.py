"""chunks: paragraphs packed up to a size limit, never across a `## ` section.

A chunk is a slice of its document body (exact character span). A paragraph is split only
when it alone exceeds the limit, at sentence ends (hard cut for a sentence still too long).
Fenced code blocks count as one paragraph, and `## ` inside them is not a heading.
"""
from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass

from .fileio import read_jsonl, sha256_file, sha256_text, write_jsonl
from .variants import t0_text, t1_text

SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|\n")


@dataclass(frozen=True)
class Block:
    start: int
    end: int
    heading: str | None  # the section title when this block is a `## ` line


def blocks(body: str) -> list[Block]:
    """Paragraph spans of `body`: blank-line separated, a `## ` line on its own, fences whole."""
    out: list[Block] = []
    start: int | None = None
    in_fence = False
    pos = 0
    for line in body.splitlines(keepends=True):
        stripped = line.strip()
        is_heading = not in_fence and line.startswith("## ")
        if stripped.startswith("```"):
            in_fence = not in_fence
        if (not stripped and not in_fence) or is_heading:
            if start is not None:
                out.append(_block(body, start, pos))
                start = None
        if is_heading:
            out.append(_block(body, pos, pos + len(line)))
        elif stripped or in_fence:
            start = pos if start is None else start
        pos += len(line)
    if start is not None:
        out.append(_block(body, start, pos))
    return out


def _block(body: str, start: int, end: int) -> Block:
    text = body[start:end]
    end = start + len(text.rstrip())
    heading = text[3:].strip() if text.startswith("## ") and "\n" not in text.strip() else None
    return Block(start, end, heading)


def split_long(body: str, block: Block, max_chars: int) -> list[tuple[int, int]]:
    """Spans of pieces of one over-long paragraph, cut at sentence ends where possible."""
    pieces: list[tuple[int, int]] = []
    cuts = [block.start]
    for m in SENTENCE_END.finditer(body, block.start, block.end):
        cuts.append(m.end())
    cuts.append(block.end)
    sentences = [(a, a + len(body[a:b].rstrip())) for a, b in zip(cuts, cuts[1:]) if body[a:b].strip()]
    cur_start = cur_end = None
    for a, b in sentences:
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


def chunk_corpus(docs: list[dict], max_chars: int) -> list[dict]:
    """Chunks of every document, numbered in order; ids are stable for a given docs.jsonl."""
    spans = [(doc, span) for doc in docs for span in chunk_document(doc["body"], max_chars)]
    width = max(5, len(str(len(spans) - 1)))
    out = []
    for i, (doc, span) in enumerate(spans):
        text = doc["body"][span["start"]:span["end"]]
        out.append({"chunk_id": f"{i:0{width}d}", "slug": doc["slug"], "title": doc["title"],
                    "section": span["section"], "start": span["start"], "end": span["end"],
                    "text": text, "key": sha256_text(doc["slug"] + "\n" + text)})
    return out


def run(input, output, params, **_) -> None:
    docs = read_jsonl(input.docs)
    chunks = chunk_corpus(docs, int(params.max_chars))
    write_jsonl(output.chunks, chunks)
    counts = Counter(c["slug"] for c in chunks)
    per_doc = [counts[d["slug"]] for d in docs]
    t1 = [len(t1_text(c)) for c in chunks]
    t0 = [len(t0_text(c)) for c in chunks]
    print(f"documents {len(docs)}, chunks {len(chunks)}, T1 mean {statistics.mean(t1):.0f} chars, "
          f"T0 mean {statistics.mean(t0):.0f} chars")
    print(f"chunks per document min {min(per_doc)}, median {statistics.median(per_doc):g}, "
          f"max {max(per_doc)}")
    print(f"chunks whose T0 is empty (body only a heading line) {sum(1 for n in t0 if n == 0)}")
    print(f"{output.chunks} sha256 {sha256_file(output.chunks)}")
