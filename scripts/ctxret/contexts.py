"""contexts: one call per chunk with the whole document, paid once ever.

A document's chunks go sequentially (later calls read the prompt cache the first wrote); each
answer is stored in the content-addressed store under the sha256 of backend identity, prompt
template, extra sentence, document and chunk text, and looked up before any call. Questions
are never an input here.
"""
from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .errors import InputError
from .fileio import read_jsonl, sha256_text, write_json, write_jsonl
from .llm import ContextFailed, call_with_retries, make_backend, render_prompt
from .store import JsonStore, content_key
from .chunktext import t1_text


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class ContextStore:
    """Answers and the failed attempts of chunks that never got one."""

    def __init__(self, root: str):
        self.answers = JsonStore(root, "ctx")
        self.failures = JsonStore(root, "ctx-failed")

    def failed_attempts(self, key: str) -> list[dict]:
        return (self.failures.get(key) or {}).get("discarded", [])

    def record_failure(self, key: str, discarded: list[dict]) -> None:
        self.failures.put(key, {"discarded": self.failed_attempts(key) + discarded})


def chunk_key(identity: dict, template_sha: str, extra: str, document: str, chunk_text: str) -> str:
    return content_key(backend=identity, template_sha256=template_sha, extra_sentence=extra,
                       document_sha256=sha256_text(document), chunk_sha256=sha256_text(chunk_text))


@dataclass
class DocumentResult:
    records: list[dict] = field(default_factory=list)  # one per chunk that has a context
    calls: int = 0                                      # attempts made now, discarded included
    from_store: int = 0                                 # chunks answered before this run
    failed: list[str] = field(default_factory=list)     # chunk ids left without a context


def document_contexts(doc: dict, chunks: list[dict], backend, template: str, extra: str,
                      store: ContextStore, attempts: int, backoff_s: float) -> DocumentResult:
    template_sha = sha256_text(template)
    identity = backend.identity()
    out = DocumentResult()
    for chunk in chunks:
        text = t1_text(chunk)
        key = chunk_key(identity, template_sha, extra, doc["body"], text)
        answer = store.answers.get(key)
        if answer is not None:
            out.from_store += 1
        else:
            user = render_prompt(template, doc["body"], text, extra)
            started = now()
            try:
                result, discarded = call_with_retries(backend, doc["body"], user, doc, chunk,
                                                      attempts, backoff_s)
            except ContextFailed as e:
                store.record_failure(key, e.discarded)
                out.failed.append(chunk["chunk_id"])
                out.calls += len(e.discarded)
                continue
            out.calls += 1 + len(discarded)
            answer = {"context": result.context, "raw": result.raw, "usage": result.usage,
                      "cost_usd": result.cost_usd, "model": result.model,
                      "duration_ms": result.duration_ms, "num_turns": result.num_turns,
                      "started": started, "ended": now(), "identity": identity,
                      "template_sha256": template_sha,
                      "discarded": store.failed_attempts(key) + discarded}
            store.answers.put(key, answer)
        out.records.append({"chunk_id": chunk["chunk_id"], "slug": doc["slug"], "key": key, **answer})
    return out


def run(input, output, params, **_) -> None:
    """Write each `<slug>.jsonl` among the job's outputs: one document for an LLM variant, every
    document at once for the free one (X1), which has no calls to pace."""
    paths = [Path(p) for p in output]
    wanted = {p.stem for p in paths}
    docs = {d["slug"]: d for d in read_jsonl(input.docs) if d["slug"] in wanted}
    chunks: dict[str, list[dict]] = defaultdict(list)
    for c in read_jsonl(input.chunks):
        if c["slug"] in wanted:
            chunks[c["slug"]].append(c)
    template = Path(input.template).read_text(encoding="utf-8")
    backend = make_backend(dict(params.llm))
    store = ContextStore(params.store)
    for path in paths:
        if path.stem not in docs:
            raise InputError(f"{input.docs}: no document {path.stem!r}")
        start = time.perf_counter()
        result = document_contexts(docs[path.stem], chunks[path.stem], backend, template,
                                   params.extra_sentence, store, int(params.attempts), float(params.backoff_s))
        for rec in result.records:
            write_json(path.parent.parent / f"{rec['chunk_id']}.json", rec)
        if result.failed:
            raise InputError(f"{params.variant} {path.stem}: no context for chunks {', '.join(result.failed)} "
                             f"after {params.attempts} attempts each (discarded attempts are kept in "
                             f"{params.store}/ctx-failed)")
        write_jsonl(path, result.records)
        print(f"{params.variant} {path.stem}: chunks {len(chunks[path.stem])}, calls {result.calls}, "
              f"from store {result.from_store}, {time.perf_counter() - start:.1f} s")
