"""variant: the texts one variant indexes, a file per variant (formats: ctxret.chunktext)."""
from __future__ import annotations

import statistics

from ..chunktext import t0_text, t1_text, with_context
from ..fileio import read_jsonl, sha256_file, write_jsonl

BASE_VARIANTS = {"T1": t1_text, "T0": lambda chunk, template: t0_text(chunk)}


def variant_rows(chunks: list[dict], variant: str, template: str) -> list[dict]:
    make = BASE_VARIANTS[variant]
    return [{"chunk_id": c["chunk_id"], "slug": c["slug"], "text": make(c, template)} for c in chunks]


def context_rows(chunks: list[dict], contexts: dict[str, str], template: str) -> list[dict]:
    """`{context}\n\n{T1}` for every chunk; every chunk must have its context."""
    return [{"chunk_id": c["chunk_id"], "slug": c["slug"],
             "text": with_context(contexts[c["chunk_id"]], c, template)} for c in chunks]


def run(input, output, params, **_) -> None:
    chunks = read_jsonl(input.chunks)
    base = params.base  # T0, T1, X1, A1 (a compared strategy's T1.<chunker>: T1)
    if base in BASE_VARIANTS:
        rows = variant_rows(chunks, base, params.t1_template)
    else:
        contexts = {r["chunk_id"]: r["context"] for path in input.contexts for r in read_jsonl(path)}
        rows = context_rows(chunks, contexts, params.t1_template)
    write_jsonl(output.variant, rows)
    mean = statistics.mean(len(r["text"]) for r in rows)
    print(f"{params.variant}: chunks {len(rows)}, mean {mean:.0f} chars, "
          f"{output.variant} sha256 {sha256_file(output.variant)}")
