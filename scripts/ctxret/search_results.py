"""assemble: a question's top k under one condition as Claude `search_result` content blocks.

    python -m ctxret.search_results --results results --condition he5:T1 --qid h01 [--k 5]

prints a JSON array of blocks, the most relevant LAST (nearest the question that follows them).
The text is the chunk itself (its section heading and body), not the context used to find it.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from ctxret.errors import InputError
from ctxret.fileio import read_jsonl
from ctxret.retrieval.runs import read_run
from ctxret.runtime.stage_runner import run_logged


def search_result(chunk: dict) -> dict:
    title = " — ".join(x for x in (chunk["title"], chunk["section"]) if x)
    return {"type": "search_result", "source": chunk.get("source") or chunk["slug"], "title": title,
            "content": [{"type": "text", "text": chunk["text"]}], "citations": {"enabled": True}}


def blocks(ranked: list[str], chunks: dict[str, dict], k: int) -> list[dict]:
    """The top k of `ranked` (best first) as blocks, best last."""
    return [search_result(chunks[c]) for c in reversed(ranked[:k])]


def assemble(results: str, condition: str, qid: str, k: int) -> list[dict]:
    retriever, _, variant = condition.rpartition(":")
    if not retriever or not variant:
        raise InputError(f"--condition {condition!r}: expected retriever:variant, e.g. he5:T1")
    path = Path(results) / "runs" / f"{retriever}-{variant}.jsonl"
    if not path.exists():
        found = sorted("{0}:{2}".format(*p.stem.rpartition("-")) for p in path.parent.glob("*.jsonl"))
        raise InputError(f"{path}: file not found (conditions here: {', '.join(found) or 'none'})")
    chunks = {c["chunk_id"]: c for c in read_jsonl(Path(results) / "chunks.jsonl")}
    run = read_run(str(path), chunks)
    if qid not in run:
        raise InputError(f"{path}: no question {qid!r}")
    return blocks(run[qid], chunks, k)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ctxret.search_results", description=__doc__.split("\n")[0])
    parser.add_argument("--results", default="results", help="the workflow's results directory")
    parser.add_argument("--condition", required=True, help="retriever:variant, e.g. he5:T1")
    parser.add_argument("--qid", required=True, help="question id, e.g. h01")
    parser.add_argument("--k", type=int, default=5, help="how many chunks (default 5)")
    args = parser.parse_args(argv)
    if args.k < 1:
        parser.error("--k must be at least 1")
    run_logged(lambda: print(json.dumps(assemble(args.results, args.condition, args.qid, args.k),
                                        ensure_ascii=False, indent=1)), None)


if __name__ == "__main__":
    main()
