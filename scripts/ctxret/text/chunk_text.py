"""Chunk text formats every stage shares: paragraph blocks, sentence ends, the variant texts.

T1 = the chunk in `chunking.t1_template` (the baseline; default "{title}\\n{section}\\n\\n{body}",
a missing title or section leaves out its line), T0 = the body without a leading `## ` line, a
context variant (X1, A1) = "{context}\\n\\n{T1}" (T1 alone for an empty context). Boundaries are
the chunk's own in every variant. The chunk an LLM is shown (and its answer is stored under) keeps
the reference's fixed layout, `prompt_chunk`, so answers already paid stay valid.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

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


def sentence_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of each sentence of text[start:end], trailing whitespace excluded."""
    cuts = [start, *(m.end() for m in SENTENCE_END.finditer(text, start, end)), end]
    return [(a, a + len(text[a:b].rstrip())) for a, b in zip(cuts, cuts[1:]) if text[a:b].strip()]


FIELD = re.compile(r"\{(title|section|body)\}")


def t1_text(chunk: dict, template: str) -> str:
    """`template` with the chunk's {title}, {section} and {body}: a line whose fields are all
    empty is left out, and so is a blank line at either end or after another blank line."""
    values = {"title": chunk["title"], "section": chunk["section"], "body": chunk["text"]}
    kept = [line for line in template.split("\n")
            if not FIELD.search(line) or any(values[f] for f in FIELD.findall(line))]
    lines: list[str] = []
    for line in kept:
        if line.strip() or (lines and lines[-1].strip()):
            lines.append(line)
    while lines and not lines[-1].strip():
        lines.pop()
    return FIELD.sub(lambda m: values[m[1]], "\n".join(lines))


def prompt_chunk(chunk: dict) -> str:
    """The chunk as the context prompt shows it (the reference's layout, whatever t1_template)."""
    return f"{chunk['title']}\n{chunk['section']}\n\n{chunk['text']}"


def t0_text(chunk: dict) -> str:
    body = chunk["text"]
    if body.startswith("## "):
        body = body.split("\n", 1)[1] if "\n" in body else ""
    return body.strip()


def with_context(context: str, chunk: dict, template: str) -> str:
    """An empty context (the free X1 where nothing else fits) leaves T1 as it is."""
    context = context.strip()
    return f"{context}\n\n{t1_text(chunk, template)}" if context else t1_text(chunk, template)
