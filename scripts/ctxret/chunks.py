"""chunks: a document body cut into chunks, each an exact character span of it.

Chunkers: `paragraph` packs paragraphs up to a size limit, never across a `## ` section; a
paragraph is split only when it alone exceeds the limit, at sentence ends (hard cut for a
sentence still too long). Fenced code blocks count as one paragraph, and `## ` inside them is
not a heading. `given` keeps the corpus's own chunks (a document's units), one chunk each.

When a document has units (paragraphs of an imported data set, given chunks), every chunk
names the units it covers (`units`) and its representative unit (`unit`): the one covering
most of its characters, the earlier one on a tie.
"""
from __future__ import annotations

import statistics
from collections import Counter

from .chunktext import Block, blocks, sentence_spans, t0_text, t1_text
from .errors import InputError
from .fileio import read_jsonl, sha256_file, sha256_text, write_jsonl


def split_long(body: str, block: Block, max_chars: int) -> list[tuple[int, int]]:
    """Spans of pieces of one over-long paragraph, cut at sentence ends where possible."""
    pieces: list[tuple[int, int]] = []
    sentences = sentence_spans(body, block.start, block.end)
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


def given_chunks(doc: dict) -> list[dict]:
    """One chunk per unit of the document (the corpus's own chunks)."""
    if "units" not in doc:
        raise InputError(f"document {doc['slug']!r} has no chunks of its own; the chunker 'given' "
                         f"needs corpus.format chunked")
    return [{"section": u.get("section", ""), "start": u["start"], "end": u["end"]} for u in doc["units"]]


def covered_units(units: list[dict], start: int, end: int) -> tuple[str, list[str]]:
    """(representative unit id, ids of every unit overlapping [start, end)): the representative
    covers most characters of the span; on a tie the earlier unit wins."""
    overlap = [(min(end, u["end"]) - max(start, u["start"]), u["id"]) for u in units]
    overlap = [(n, uid) for n, uid in overlap if n > 0]
    best = max(overlap, key=lambda o: o[0])  # max() keeps the first of equals
    return best[1], [uid for _, uid in overlap]


def long_paragraphs(body: str, max_chars: int) -> int:
    """How many paragraphs of `body` exceed max_chars (each is split at sentence ends)."""
    return sum(1 for b in blocks(body) if b.heading is None and b.end - b.start > max_chars)


def chunk_corpus(docs: list[dict], max_chars: int, chunker: str = "paragraph") -> list[dict]:
    """Chunks of every document, numbered in order; ids are stable for a given docs.jsonl."""
    cut = given_chunks if chunker == "given" else lambda doc: chunk_document(doc["body"], max_chars)
    spans = [(doc, span) for doc in docs for span in cut(doc)]
    width = max(5, len(str(len(spans) - 1)))
    out = []
    for i, (doc, span) in enumerate(spans):
        text = doc["body"][span["start"]:span["end"]]
        row = {"chunk_id": f"{i:0{width}d}", "slug": doc["slug"], "title": doc["title"],
               "section": span["section"], "start": span["start"], "end": span["end"],
               "text": text, "key": sha256_text(doc["slug"] + "\n" + text)}
        if "units" in doc:
            row["unit"], row["units"] = covered_units(doc["units"], span["start"], span["end"])
        out.append(row)
    return out


def run(input, output, params, **_) -> None:
    docs = read_jsonl(input.docs)
    chunks = chunk_corpus(docs, int(params.max_chars), params.chunker)
    write_jsonl(output.chunks, chunks)
    counts = Counter(c["slug"] for c in chunks)
    per_doc = [counts[d["slug"]] for d in docs]
    t1 = [len(t1_text(c)) for c in chunks]
    t0 = [len(t0_text(c)) for c in chunks]
    print(f"chunker {params.chunker}: documents {len(docs)}, chunks {len(chunks)}, "
          f"T1 mean {statistics.mean(t1):.0f} chars, T0 mean {statistics.mean(t0):.0f} chars")
    print(f"chunks per document min {min(per_doc)}, median {statistics.median(per_doc):g}, "
          f"max {max(per_doc)}")
    if params.chunker == "paragraph":
        long = {d["slug"]: long_paragraphs(d["body"], int(params.max_chars)) for d in docs}
        print(f"paragraphs longer than {params.max_chars} chars, split at sentence ends: "
              f"{sum(long.values())} (in {sum(1 for n in long.values() if n)} documents)")
    print(f"chunks whose T0 is empty (body only a heading line) {sum(1 for n in t0 if n == 0)}")
    print(f"{output.chunks} sha256 {sha256_file(output.chunks)}")
