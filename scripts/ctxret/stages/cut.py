"""cut: the runs that are scored, each the first `search.top_k` of its deep run (the one fusion
and reranking read), scores and order kept; the TREC run names chunks as chunks.jsonl does."""
from __future__ import annotations

from ..fileio import read_jsonl
from ..runs import chunk_names, write_run


def run(input, output, params, **_) -> None:
    k = int(params.top_k)
    names = {path: chunk_names(read_jsonl(path)) for path in dict.fromkeys(input.chunks)}
    for name, deep, chunks, scored, trec in zip(params.names, input.deep, input.chunks, output.runs, output.trecs,
                                                strict=True):
        rows = read_jsonl(deep)
        write_run(scored, trec, name, {r["qid"]: list(zip(r["ids"], r["scores"]))[:k] for r in rows}, names[chunks])
    print(f"{len(output.runs)} runs: the top {k} of each")
