"""cut: the runs that are scored, each the first `search.top_k` of its deep run (the one fusion
and reranking read), scores and order kept."""
from __future__ import annotations

from .fileio import read_jsonl
from .runs import write_run


def run(input, output, params, **_) -> None:
    k = int(params.k)
    for name, deep, scored, trec in zip(params.names, input.deep, output.runs, output.trecs, strict=True):
        rows = read_jsonl(deep)
        write_run(scored, trec, name, {r["qid"]: list(zip(r["ids"], r["scores"]))[:k] for r in rows})
    print(f"{len(output.runs)} runs: the top {k} of each")
