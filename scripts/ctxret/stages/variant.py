"""variant: the texts one variant indexes, a file per variant (formats: ctxret.text.chunk_text)."""
import statistics
from typing import Iterable, Iterator

from ctxret.fileio import iter_jsonl, sha256_file, write_jsonl
from ctxret.runtime.stage_runner import run_rule
from ctxret.text.chunk_text import t0_text, t1_text, with_context

BASE_VARIANTS = {"T1": t1_text, "T0": lambda chunk, template: t0_text(chunk)}


def rows_of(chunks: Iterable[dict], base: str, template: str, contexts: dict[str, str]) -> Iterator[dict]:
    """A variant's row for every chunk: T0 or T1 from the chunk, X1 and A1 `{context}\n\n{T1}`
    (every chunk must have its context)."""
    for c in chunks:
        text = BASE_VARIANTS[base](c, template) if base in BASE_VARIANTS else \
            with_context(contexts[c["chunk_id"]], c, template)
        yield {"chunk_id": c["chunk_id"], "slug": c["slug"], "text": text}


def variant(input, output, params, **_) -> None:
    base = params.base  # T0, T1, X1, A1 (a compared strategy's T1.<chunker>: T1)
    contexts = {} if base in BASE_VARIANTS else \
        {r["chunk_id"]: r["context"] for path in input.contexts for _, r in iter_jsonl(path)}
    lengths: list[int] = []

    def measured(rows: Iterator[dict]) -> Iterator[dict]:
        for row in rows:
            lengths.append(len(row["text"]))
            yield row
    chunks = (c for _, c in iter_jsonl(input.chunks))
    write_jsonl(output.variant, measured(rows_of(chunks, base, params.t1_template, contexts)))
    print(f"{params.variant}: chunks {len(lengths)}, mean {statistics.mean(lengths):.0f} chars, "
          f"{output.variant} sha256 {sha256_file(output.variant)}")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
