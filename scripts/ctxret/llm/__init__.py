"""LLM backends that write a short context for a chunk: claude-cli, anthropic, openai, heuristic.

`make_backend(settings)` builds one from its settings; `call_with_retries` asks it until an
answer comes or the attempts run out. Every backend gets the document once, as the system
prompt (ctxret.prompt renders both parts). Nothing here knows about stores or ledgers.
"""
from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Callable

from ..errors import InputError
from .base import CAUSES, USAGE_KEYS, AttemptFailed, Backend, CallResult, Unreachable

__all__ = ["CAUSES", "USAGE_KEYS", "AttemptFailed", "Backend", "CallResult", "ContextFailed",
           "BACKENDS", "make_backend", "call_with_retries"]

BACKENDS = ("claude-cli", "anthropic", "openai", "heuristic")


class ContextFailed(Exception):
    """Every attempt for one chunk was discarded; `discarded` lists them."""

    def __init__(self, discarded: list[dict]):
        causes = ", ".join(d["cause"] for d in discarded)
        super().__init__(f"no context after {len(discarded)} attempts ({causes})")
        self.discarded = discarded


def make_backend(settings: dict) -> Backend:
    """The backend named by settings["backend"]; InputError for an unknown one or bad settings."""
    name = settings.get("backend")
    if name == "claude-cli":
        from .claude_cli import ClaudeCliBackend
        return ClaudeCliBackend(settings)
    if name == "anthropic":
        from .anthropic_api import AnthropicBackend
        return AnthropicBackend(settings)
    if name == "openai":
        from .openai_api import OpenAIBackend
        return OpenAIBackend(settings)
    if name == "heuristic":
        from .heuristic import HeuristicBackend
        return HeuristicBackend(settings)
    raise InputError(f"llm backend {name!r} is unknown; choose one of {', '.join(BACKENDS)}")


def call_with_retries(backend: Backend, system: str, user: str, doc: dict, chunk: dict,
                      attempts: int, backoff_s: float,
                      sleep: Callable[[float], None] = time.sleep) -> tuple[CallResult, list[dict]]:
    """Up to `attempts` calls, waiting backoff_s * 2**i after failure i (one line printed per
    retry); the result and the discarded attempts [{cause, detail, at}]. ContextFailed once the
    attempts run out; InputError at once when the service is Unreachable."""
    discarded: list[dict] = []
    for i in range(attempts):
        try:
            return backend.call(system, user, doc, chunk), discarded
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
