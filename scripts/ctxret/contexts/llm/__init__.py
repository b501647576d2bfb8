"""LLM backends that write a short context for a chunk, registered in BACKENDS.

`make_backend(settings)` builds one from its settings; `call_with_retries` asks it until an
answer comes or the attempts run out. Every backend gets the document once, as the system
prompt (ctxret.contexts.prompt renders both parts). Nothing here knows about stores or price tables.

A new backend is a module here with a `Backend` subclass and its settings as JSON Schema
(`SETTINGS`: properties and required ones, the one home of their defaults), and one line in
BACKENDS: the config schema's `contexts.llm` offers every paid backend with its own settings
(ctxret.config.schema builds them from BACKENDS).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable

from ctxret.contexts.llm import anthropic_api, anthropic_batch, claude_cli, heuristic, openai_api, openai_batch
from ctxret.contexts.llm.anthropic_api import AnthropicBackend
from ctxret.contexts.llm.anthropic_batch import AnthropicBatchBackend
from ctxret.contexts.llm.base import (CAUSES, INPUT_KINDS, USAGE_KEYS, AttemptFailed, Backend, BatchState, CallResult,
                                      Unreachable, short)
from ctxret.contexts.llm.claude_cli import ClaudeCliBackend
from ctxret.contexts.llm.heuristic import HeuristicBackend
from ctxret.contexts.llm.openai_api import OpenAIBackend
from ctxret.contexts.llm.openai_batch import OpenAIBatchBackend
from ctxret.errors import InputError

__all__ = ["CAUSES", "INPUT_KINDS", "USAGE_KEYS", "AttemptFailed", "Backend", "BatchState", "CallResult",
           "ContextFailed", "BackendSpec", "Unreachable", "short",
           "BACKENDS", "FREE_BACKEND", "free_context", "backend_spec", "make_backend", "priced_model",
           "call_with_retries"]


@dataclass(frozen=True)
class BackendSpec:
    """One backend: its name (contexts.llm.backend), its class (its module loads an SDK on the
    first call only), the settings it reads (JSON Schema: {"properties": {...}, "required": [...]},
    from which the config schema checks and completes contexts.llm), where its answers report the prompt's tokens
    (`cache`: the usage key of a document's first call, `first`, and of every user message,
    `user`, for the ledger's estimate), the setting naming its row of the price table
    (`prices_key`), whether it pays that row's batch prices (`batch`) and how it asks the service
    for the model's context window (`window`: its settings -> (tokens, where) or None; none: the
    price row's). A free backend (no prices_key) is never priced, stored or offered as A1."""
    name: str
    cls: type[Backend]
    settings: dict
    cache: dict[str, str] | None = None
    prices_key: str | None = "model"
    batch: bool = False
    window: Callable[[dict], tuple[int, str] | None] | None = None

    @property
    def paid(self) -> bool:
        return self.prices_key is not None


# claude -p marks the user message for its 1-hour cache too (its answers show it as
# cache_creation, with a couple of uncached tokens); the anthropic backend caches the system
# block only; OpenAI-compatible servers reuse a prefix they have seen, with no cache write.
BACKENDS = {spec.name: spec for spec in (
    BackendSpec("claude-cli", ClaudeCliBackend, claude_cli.SETTINGS,
                {"first": "cache_creation_input_tokens", "user": "cache_creation_input_tokens"}),
    BackendSpec("anthropic", AnthropicBackend, anthropic_api.SETTINGS,
                {"first": "cache_creation_input_tokens", "user": "input_tokens"}),
    BackendSpec("anthropic-batch", AnthropicBatchBackend, anthropic_batch.SETTINGS,
                {"first": "cache_creation_input_tokens", "user": "input_tokens"}, batch=True),
    BackendSpec("openai", OpenAIBackend, openai_api.SETTINGS, {"first": "input_tokens", "user": "input_tokens"},
                window=openai_api.stated_window),
    BackendSpec("openai-batch", OpenAIBatchBackend, openai_batch.SETTINGS,
                {"first": "input_tokens", "user": "input_tokens"}, batch=True, window=openai_api.stated_window),
    BackendSpec("heuristic", HeuristicBackend, heuristic.SETTINGS, prices_key=None),
)}
FREE_BACKEND = "heuristic"  # X1: the context from the document's structure


def free_context(language: str) -> dict:
    """X1's settings: the free backend in the corpus language."""
    return {"backend": FREE_BACKEND, "language": language}


class ContextFailed(Exception):
    """Every attempt for one chunk was discarded; `discarded` lists them."""

    def __init__(self, discarded: list[dict]):
        causes = ", ".join(d["cause"] for d in discarded)
        super().__init__(f"no context after {len(discarded)} attempts ({causes})")
        self.discarded = discarded


def backend_spec(name: str | None) -> BackendSpec:
    """The registered backend `name`; InputError for an unknown one."""
    if name not in BACKENDS:
        raise InputError(f"llm backend {name!r} is unknown; choose one of {', '.join(BACKENDS)}")
    return BACKENDS[name]


def make_backend(settings: dict) -> Backend:
    """The backend named by settings["backend"]; InputError for an unknown one or bad settings."""
    return backend_spec(settings.get("backend")).cls(settings)


def priced_model(settings: dict) -> str:
    """The model whose row of the price table prices these settings' calls; InputError for a
    free backend."""
    spec = backend_spec(settings.get("backend"))
    if not spec.paid:
        raise InputError(f"llm backend {spec.name!r} is free: it has no price")
    return settings[spec.prices_key]


def call_with_retries(backend: Backend, system: str, user: str, doc: dict, chunk: dict,
                      attempts: int, backoff_s: float,
                      sleep: Callable[[float], None] = time.sleep,
                      check: Callable[[CallResult], None] = lambda result: None) -> tuple[CallResult, list[dict]]:
    """Up to `attempts` calls, waiting backoff_s * 2**i after failure i (one line printed per
    retry); the result and the discarded attempts [{cause, detail, at}]. `check` raises the
    AttemptFailed of a reply it rejects (ctxret.contexts.replies). ContextFailed once the attempts run
    out; InputError at once when the service is Unreachable."""
    discarded: list[dict] = []
    for i in range(attempts):
        try:
            result = backend.call(system, user, doc, chunk)
            check(result)
            return result, discarded
        except Unreachable as e:
            raise InputError(f"llm backend {backend.name!r}: {e}") from None
        except AttemptFailed as e:
            discarded.append({"cause": e.cause, "detail": e.detail,
                              "at": datetime.now(timezone.utc).isoformat(timespec="seconds")})
            if i + 1 < attempts:
                wait = backoff_s * 2 ** i
                print(f"  chunk {chunk['chunk_id']}: attempt {i + 1} of {attempts} failed ({e.cause}: {e.detail}); "
                      f"again in {wait:g} s")
                sleep(wait)
    raise ContextFailed(discarded)
