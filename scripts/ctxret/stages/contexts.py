"""contexts: an LLM variant (A1), one job per document, each paid answer paid once ever
(ctxret.docctx), or one job for every document by a batch API (ctxret.batchctx); the shards the
per-document jobs read; one chunk's record on demand.

    python -m ctxret.stages.contexts results/ctx/A1 01556    # one chunk's record, as the backend answered
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..batchctx import Waiting, write_documents
from ..docctx import ContextStore, documents_with_chunks, write_document
from ..errors import InputError
from ..fileio import read_json, read_jsonl, write_json
from ..llm import make_backend
from ..prompt import read_prompt
from ..replies import ReplyChecks


def run(input, output, params, **_) -> None:
    """An LLM variant (A1), one job per document: its shard in, its records out."""
    shard = read_json(input.shard)
    print(write_document(Path(output[0]), params.variant, shard["doc"], shard["chunks"],
                         make_backend(dict(params.llm)), read_prompt(input.template), params,
                         ContextStore(params.store), ReplyChecks.of(dict(params.reply))))


def run_batch(input, output, params, **_) -> None:
    """An LLM variant by a batch API (anthropic-batch, openai-batch): every document in one job, its records
    written once every chunk has a context (ctxret.batchctx)."""
    paths = {Path(p).stem: Path(p) for p in output}
    docs = documents_with_chunks(input.docs, input.chunks, list(paths))
    print(write_documents(paths, params.variant, docs, make_backend(dict(params.llm)), read_prompt(input.template),
                          params, Waiting(**params.batch), ReplyChecks.of(dict(params.reply))))


def run_shards(input, output, **_) -> None:
    """Each document with its chunks, one file per document: what an A1 job reads."""
    paths = [Path(p) for p in output]
    shards = documents_with_chunks(input.docs, input.chunks, [p.stem for p in paths])
    for path, (doc, chunks) in zip(paths, shards.values()):
        write_json(path, {"doc": doc, "chunks": chunks})
    print(f"shards: {len(paths)} documents, {sum(len(chunks) for _, chunks in shards.values())} chunks")


def record(variant_dir: str, chunk_id: str) -> dict:
    """The record of one chunk among `<variant_dir>/docs/*.jsonl`."""
    for path in sorted(Path(variant_dir, "docs").glob("*.jsonl")):
        for rec in read_jsonl(path):
            if rec["chunk_id"] == chunk_id:
                return rec
    raise InputError(f"{variant_dir}/docs: no chunk {chunk_id!r}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m ctxret.stages.contexts results/ctx/<variant> <chunk id>")
    try:
        print(json.dumps(record(*sys.argv[1:]), ensure_ascii=False, indent=1))
    except InputError as e:
        sys.exit(f"error: {e}")
