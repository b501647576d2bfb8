"""anthropic-batch: the Message Batches API through the official SDK, at the batch price.

Each chunk's request is exactly what the `anthropic` backend sends (the document as the cached
system block, the chunk as the user message) and its identity is `anthropic`'s: both share the
store's answers, so an answer paid online is never paid again by batch, nor the reverse. The
custom_id of a request is its store key (64 hex digits, the API's longest custom_id).
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Iterator

from ctxret.contexts.llm.anthropic_api import SETTINGS as ANTHROPIC_SETTINGS, AnthropicBackend
from ctxret.contexts.llm.base import (AttemptFailed, BatchState, CallResult, first_bytes, line_bytes, results_line,
                                     sdk_call, short)

# contexts.llm's settings for this backend: the anthropic backend's, described for a batch
SETTINGS = {"required": ["model"], "properties": {
    **ANTHROPIC_SETTINGS["properties"],
    "model": {"type": "string", "minLength": 1,
              "description": "e.g. claude-opus-5-5; priced at its row's batch prices"},
    "timeout_s": {"type": "number", "exclusiveMinimum": 0, "default": 300,
                  "description": "per API call (submit, poll, results), not per batch"}}}

# The provider's limits per batch (docs: "Message Batches API", batch limitations).
MAX_REQUESTS = 100_000
MAX_BYTES = 256 * 1024 * 1024


class AnthropicBatchBackend(AnthropicBackend):
    name = "anthropic-batch"
    api = "anthropic"
    max_requests, max_bytes = MAX_REQUESTS, MAX_BYTES

    def identity(self) -> dict:
        return {**super().identity(), "backend": "anthropic"}

    def request(self, key: str, system: str, user: str) -> dict:
        return {"custom_id": key, "params": self.params(system, user)}

    request_bytes = staticmethod(line_bytes)

    def submit(self, requests: list[dict], marker: str) -> str:
        """A new batch of `requests` (request()'s); its id. (A message batch carries no metadata:
        find() knows it by its size and time instead of `marker`.)"""
        batch, _ = sdk_call(self.sdk, self.url, lambda: self.client.messages.batches.create(requests=requests))
        return batch.id

    def find(self, marker: str, n: int, since: str, known: set[str]) -> str | None:
        """The id of the one recent batch not in `known` created since `since` (a minute of clock
        skew allowed) with `n` requests, or None (none, or several). A wrong one costs an attempt,
        never an answer: only the custom ids an entry was sent are read from its results."""
        page, _ = sdk_call(self.sdk, self.url, lambda: self.client.messages.batches.list(limit=100))
        start = datetime.fromisoformat(since) - timedelta(minutes=1)
        found = [b.id for b in page.data if b.id not in known and b.created_at >= start
                 and sum(b.request_counts.model_dump().values()) == n]
        return found[0] if len(found) == 1 else None

    def state(self, batch_id: str) -> BatchState:
        batch, _ = sdk_call(self.sdk, self.url, lambda: self.client.messages.batches.retrieve(batch_id))
        return BatchState(batch.processing_status, batch.request_counts.model_dump())

    def cancel(self, batch_id: str) -> None:
        sdk_call(self.sdk, self.url, lambda: self.client.messages.batches.cancel(batch_id))

    def results(self, batch_id: str) -> Iterator[tuple[str | None, CallResult | AttemptFailed]]:
        """(custom_id, its CallResult or the AttemptFailed of its outcome) of an ended batch, line
        by line as the results file streams in (the request is made here, the lines read later),
        each line read on its own: one that cannot be read is (None, AttemptFailed)."""
        decoder, _ = sdk_call(self.sdk, self.url, lambda: self.client.messages.batches.results(batch_id))
        return (self.outcome(batch_id, line) for line in decoder.http_response.iter_lines() if line.strip())

    def outcome(self, batch_id: str, text: str) -> tuple[str | None, CallResult | AttemptFailed]:
        key, item = results_line(text)
        if key is None:
            return key, item
        result = item.get("result")
        kind = result.get("type") if isinstance(result, dict) else None
        if kind == "succeeded" and isinstance(result.get("message"), dict):
            try:
                return key, self.read(self.sdk.types.Message.construct(**result["message"]), 0)
            except AttemptFailed as e:
                return key, e
        if kind == "errored":
            error = result.get("error")
            error = error.get("error") if isinstance(error, dict) else None
            error = error if isinstance(error, dict) else {}
            detail = f"{error.get('type', 'error')}: {error.get('message', '')}"
            return key, AttemptFailed("errored", short(detail), item)
        if kind in ("canceled", "expired"):
            return key, AttemptFailed(kind, f"the batch {batch_id} ended with this request {kind}")
        return key, AttemptFailed("malformed", f"a results line of batch {batch_id} without its result: "
                                               f"{first_bytes(text, 80)}", item)
