"""One document's context records from a backend: the document once as the system prompt, its
chunks one after another (later calls read the prompt cache the first wrote). A paid answer is
stored in the content-addressed store under the sha256 of backend identity, prompt template,
extra sentence, document and chunk text, and looked up before any call; a document is claimed in
the store while its chunks are asked for, so runs sharing the store pay each answer once. A free
backend (X1) is computed afresh, never stored. Questions are never an input here.
"""
from __future__ import annotations

import contextlib
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ctxret.contexts.llm import USAGE_KEYS, Backend, CallResult, ContextFailed, call_with_retries
from ctxret.contexts.prompt import Prompt
from ctxret.contexts.replies import ReplyChecks
from ctxret.errors import InputError
from ctxret.fileio import canonical_json, read_jsonl, sha256_text, write_jsonl
from ctxret.secrets import redact_all
from ctxret.store import JsonStore, check_writable, claimed, content_key
from ctxret.text.chunk_text import prompt_chunk

CHECKSUM = "answer_sha256"   # written with every answer: the sha256 of the rest of it
ANSWER_FIELDS = {"context": (str,), "raw": (object,), "usage": (dict,),
                 "cost_usd": (int, float, type(None)), "model": (str,), "duration_ms": (int,), "num_turns": (int,),
                 "discarded": (list,), "identity": (dict,), "started": (str, type(None)), "ended": (str, type(None))}


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def paid_answer(result: CallResult, identity: dict, template_sha256: str, started: str | None,
                discarded: list[dict], **more) -> dict:
    """The store's answer for a paid reply (a usage_problem only when the usage was malformed,
    cache_not_reported only when the server said nothing of its prompt cache)."""
    problem = {"usage_problem": result.usage_problem} if result.usage_problem else {}
    problem |= {} if result.cache_reported else {"cache_not_reported": True}
    return {"context": result.context, "raw": result.raw, "usage": result.usage, "cost_usd": result.cost_usd,
            "model": result.model, "duration_ms": result.duration_ms, "num_turns": result.num_turns,
            "started": started, "ended": now(), "identity": identity, "template_sha256": template_sha256,
            "discarded": discarded, **problem, **more}


def answer_problem(value) -> str | None:
    """Why a stored answer cannot be used, or None: not an object, a field missing or of the wrong
    kind, or its content not what its hash says (an entry written before the hash: its fields)."""
    if not isinstance(value, dict):
        return f"a JSON {type(value).__name__}, not an answer"
    if CHECKSUM in value and value[CHECKSUM] != sha256_text(canonical_json({k: v for k, v in value.items()
                                                                            if k != CHECKSUM})):
        return "its content does not match the hash written with it: edited or damaged"
    for name, kinds in ANSWER_FIELDS.items():
        if name not in value:
            return f"no {name}"
        if not isinstance(value[name], kinds) or (isinstance(value[name], bool) and bool not in kinds):
            return f"{name} is a JSON {type(value[name]).__name__}"
    if not value["context"].strip():
        return "an empty context"
    if not all(isinstance(value["usage"].get(k), int) and value["usage"][k] >= 0 for k in USAGE_KEYS):
        return "usage without its token counts"
    for name in ("started", "ended"):
        try:
            value[name] is None or datetime.fromisoformat(value[name])
        except ValueError:
            return f"{name} {value[name][:40]!r} is not a time"
    return attempts_problem(value["discarded"])


def attempts_problem(discarded) -> str | None:
    """Why a list of failed attempts cannot be used, or None."""
    if not isinstance(discarded, list) or not all(isinstance(d, dict) and isinstance(d.get("cause"), str)
                                                  for d in discarded):
        return "discarded attempts without their causes"
    return None


class ContextStore:
    """Answers, the failed attempts of chunks that never got one, and answers paid but not stored
    (`ctx-pending/`: the store failed after its writable check; the next run reads them)."""

    def __init__(self, root: str):
        self.answers = JsonStore(root, "ctx")
        self.failures = JsonStore(root, "ctx-failed")
        self.pending = JsonStore(root, "ctx-pending")

    def answer(self, key: str) -> dict | None:
        """The stored answer, else one kept pending (moved into the store when it can take it); a
        damaged one is set aside (one line) and None."""
        found = self._verified(self.answers, key)
        if found is None and (found := self._verified(self.pending, key)) is not None:
            with contextlib.suppress(OSError):
                self.answers.put(key, found)
                self.pending.path(key).unlink()
        return None if found is None else {k: v for k, v in found.items() if k != CHECKSUM}

    @staticmethod
    def _verified(store: JsonStore, key: str) -> dict | None:
        found = store.get(key)
        if found is not None and (problem := answer_problem(found)) is not None:
            store.set_aside(key, problem)
            return None
        return found

    def keep(self, key: str, answer: dict, what: str) -> dict:
        """Store a paid answer, known keys redacted, with its hash; the answer as stored. When the
        store fails (a directory turned file, a full disk), keep it pending and stop at once
        (InputError): no further call is paid into a store that fails."""
        answer = redact_all(answer)
        stored = {**answer, CHECKSUM: sha256_text(canonical_json(answer))}
        try:
            self.answers.put(key, stored)
            return answer
        except OSError as e:
            problem = f"{what}: the paid answer could not be stored in {self.answers.path(key)} ({e.strerror or e})"
        try:
            self.pending.put(key, stored)
        except OSError as e:
            print(json.dumps({"key": key, **stored}, ensure_ascii=False), file=sys.stderr, flush=True)
            raise InputError(f"{problem}, nor kept in {self.pending.dir} ({e.strerror or e}): the answer is the "
                             f"line above; free the store and rerun") from None
        raise InputError(f"{problem}; it is kept in {self.pending.path(key)}, which the next run reads instead "
                         f"of paying again; repair the store and rerun")

    def failed_attempts(self, key: str) -> list[dict]:
        found = self.failures.get(key)
        problem = attempts_problem(found.get("discarded") if isinstance(found, dict) else None)
        if found is not None and problem is not None:
            self.failures.set_aside(key, problem)
            return []
        return (found or {}).get("discarded", [])

    def record_failure(self, key: str, discarded: list[dict]) -> None:
        try:
            self.failures.put(key, {"discarded": self.failed_attempts(key) + redact_all(discarded)})
        except OSError as e:
            raise InputError(f"store: the failed attempts could not be recorded in {self.failures.path(key)} "
                             f"({e.strerror or e}); repair the store and rerun") from None


def chunk_key(identity: dict, prompt_sha: str, extra: str, document: str, chunk_text: str) -> str:
    return content_key(backend=identity, template_sha256=prompt_sha, extra_sentence=extra,
                       document_sha256=sha256_text(document), chunk_sha256=sha256_text(chunk_text))


def document_key(backend: Backend, prompt: Prompt, extra: str, doc: dict) -> str:
    """What a document's claim in the store is named by: all its chunk keys share these parts."""
    return content_key(backend=backend.identity(), template_sha256=prompt.sha256, extra_sentence=extra,
                       document_sha256=sha256_text(doc["body"]))


@dataclass
class DocumentResult:
    records: list[dict] = field(default_factory=list)  # one per chunk that has a context
    calls: int = 0                                      # attempts made now, discarded included
    from_store: int = 0                                 # chunks answered before this run
    failed: list[str] = field(default_factory=list)     # chunk ids left without a context


def document_contexts(doc: dict, chunks: list[dict], backend: Backend, prompt: Prompt, extra: str,
                      store: ContextStore | None, attempts: int, backoff_s: float,
                      checks: ReplyChecks | None = None) -> DocumentResult:
    """Every chunk's context, from the store when it holds one; `store` None (free backends):
    computed, not stored, without timestamps (the records are the same in every run). A reply
    `checks` rejects is a failed attempt."""
    identity = backend.identity()
    system = prompt.system_for(doc["body"])  # the same bytes in every call of this document
    check = checks.check if checks else (lambda result: None)
    out = DocumentResult()
    for chunk in chunks:
        text = prompt_chunk(chunk)
        key = chunk_key(identity, prompt.sha256, extra, doc["body"], text)
        answer = store.answer(key) if store else None
        if answer is not None:
            out.from_store += 1
        else:
            started = now() if store else None
            try:
                result, discarded = call_with_retries(backend, system, prompt.user_for(text, extra),
                                                      doc, chunk, attempts, backoff_s, check=check)
            except ContextFailed as e:
                if store:
                    store.record_failure(key, e.discarded)
                out.failed.append(chunk["chunk_id"])
                out.calls += len(e.discarded)
                continue
            out.calls += 1 + len(discarded)
            answer = paid_answer(result, identity, prompt.sha256, started,
                                 (store.failed_attempts(key) if store else []) + discarded)
            if store:
                answer = store.keep(key, answer, f"{doc['slug']} chunk {chunk['chunk_id']}")
            else:
                answer["ended"] = None
        out.records.append({"chunk_id": chunk["chunk_id"], "slug": doc["slug"], "key": key, **answer})
    return out


def write_document(path: Path, variant: str, doc: dict, chunks: list[dict], backend: Backend,
                   prompt: Prompt, params, store: ContextStore | None, checks: ReplyChecks | None = None) -> str:
    """One document's records to `path` (JSON Lines) and its log line, or InputError naming its
    chunks left without a context (nothing written then)."""
    start = time.perf_counter()
    # claimed: a run sharing the store waits for this one, then reads these answers instead of paying
    claim = contextlib.nullcontext() if store is None else claimed(
        params.store, "ctx", document_key(backend, prompt, params.extra_sentence, doc),
        lambda: print(f"{variant} {doc['slug']}: waiting for another run asking for its contexts", flush=True))
    if store is not None:
        check_writable(store.answers.dir)
    with claim:
        result = document_contexts(doc, chunks, backend, prompt, params.extra_sentence, store,
                                   int(params.attempts), float(params.backoff_s), checks)
    if result.failed:
        raise InputError(f"{variant} {doc['slug']}: no context for chunks {', '.join(result.failed)} "
                         f"after {params.attempts} attempts each (discarded attempts are kept in "
                         f"{params.store}/ctx-failed)")
    write_jsonl(path, result.records)
    return (f"{variant} {doc['slug']}: chunks {len(chunks)}, calls {result.calls}, "
            f"from store {result.from_store}, {time.perf_counter() - start:.1f} s")


def documents_with_chunks(docs_path: str, chunks_path: str, slugs: list[str]) -> dict[str, tuple[dict, list[dict]]]:
    """{slug: (document, its chunks)} for each of `slugs`; InputError for a slug with no document."""
    wanted = set(slugs)
    docs = {d["slug"]: d for d in read_jsonl(docs_path) if d["slug"] in wanted}
    chunks: dict[str, list[dict]] = defaultdict(list)
    for c in read_jsonl(chunks_path):
        if c["slug"] in wanted:
            chunks[c["slug"]].append(c)
    missing = next((s for s in slugs if s not in docs), None)
    if missing is not None:
        raise InputError(f"{docs_path}: no document {missing!r}")
    return {s: (docs[s], chunks[s]) for s in slugs}
