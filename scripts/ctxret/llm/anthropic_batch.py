"""anthropic-batch: the Message Batches API through the official SDK, at the batch price.

Each chunk's request is exactly what the `anthropic` backend sends (the document as the cached
system block, the chunk as the user message) and its identity is `anthropic`'s: both share the
store's answers, so an answer paid online is never paid again by batch, nor the reverse. The
custom_id of a request is its store key (64 hex digits, the API's longest custom_id).
"""
from __future__ import annotations

from typing import Iterator

from .anthropic_api import SETTINGS as ANTHROPIC_SETTINGS, AnthropicBackend
from .base import AttemptFailed, CallResult, sdk_call, short
from .batch_api import BatchState, line_bytes

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

    def submit(self, requests: list[dict]) -> str:
        """A new batch of `requests` (request()'s); its id."""
        batch, _ = sdk_call(self.sdk, self.url, lambda: self.client.messages.batches.create(requests=requests))
        return batch.id

    def state(self, batch_id: str) -> BatchState:
        batch, _ = sdk_call(self.sdk, self.url, lambda: self.client.messages.batches.retrieve(batch_id))
        return BatchState(batch.processing_status, batch.request_counts.model_dump())

    def cancel(self, batch_id: str) -> None:
        sdk_call(self.sdk, self.url, lambda: self.client.messages.batches.cancel(batch_id))

    def results(self, batch_id: str) -> Iterator[tuple[str, CallResult | AttemptFailed]]:
        """(custom_id, its CallResult or the AttemptFailed of its outcome) of an ended batch, line
        by line as the results file streams in (the request is made here, the lines read later)."""
        lines, _ = sdk_call(self.sdk, self.url, lambda: self.client.messages.batches.results(batch_id))
        return (self.outcome(batch_id, line) for line in lines)

    def outcome(self, batch_id: str, line) -> tuple[str, CallResult | AttemptFailed]:
        result = line.result
        if result.type == "succeeded":
            try:
                return line.custom_id, self.read(result.message, 0)
            except AttemptFailed as e:
                return line.custom_id, e
        if result.type == "errored":
            error = getattr(result.error, "error", None)
            detail = f"{getattr(error, 'type', 'error')}: {getattr(error, 'message', '')}"
            return line.custom_id, AttemptFailed("errored", short(detail), result.model_dump(mode="json"))
        return line.custom_id, AttemptFailed(result.type, f"the batch {batch_id} ended with this request "
                                                          f"{result.type}")
