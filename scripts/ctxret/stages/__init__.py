"""The stages: each module is what one or more rules run, pure functions above, file I/O only in
run(); a stage never imports another stage. Every rule runs scripts/stage.py, which calls the
function ENTRIES names for it (imported then, so a job loads its own stage only)."""
from __future__ import annotations

import importlib
from typing import Callable

ENTRIES = {  # rule: "<stage module>.<function>"
    "prep": "prep.run",
    "questions": "questions.run",
    "chunks": "chunks.run",
    "chunking": "chunking.run",
    "variant": "variants.run",
    "qcheck": "qcheck.run",
    "ctx_shards": "contexts.run_shards",
    "contexts": "contexts.run",
    "contexts_batch": "contexts.run_batch",
    "contexts_free": "contexts_free.run",
    "ctx_stats": "ctxreport.run_stats",
    "ctx_estimate": "ctxreport.run_estimate",
    "ctx_ctxlen": "ctxlen.run",
    "precision": "embed.run_precision",
    "embed_shard": "embed.run_shard",
    "embed_chunks": "embed.run_chunks",
    "embed_question_shard": "embed.run_question_shard",
    "embed_questions": "embed.run_questions",
    "tokens": "tokens.run",
    "index": "index.run",
    "search_dense": "search.run_dense",
    "search_bm25": "search.run_bm25",
    "fuse": "search.run_fuse",
    "cut_runs": "cut.run",
    "rerank": "rerank.run",
    "score": "score.run",
    "plan": "preregister.run_plan",
    "preregister": "preregister.run",
    "pairs": "pairs.run",
    "plots": "plots.run",
    "summary": "summary.run",
    "explorer": "explorer.run",
    "manifest": "manifest.run",
}


def entry(rule: str) -> Callable[..., None]:
    """The stage function the rule `rule` runs."""
    module, function = ENTRIES[rule].rsplit(".", 1)
    return getattr(importlib.import_module(f"{__name__}.{module}"), function)
