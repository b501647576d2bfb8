"""openai-batch: the OpenAI Batch API through the official SDK (OpenAI, or a compatible server
that implements it), at the batch price.

Each chunk's request is one JSONL line whose body is exactly what the `openai` backend sends (the
document as the system message, first; the chunk as the user message) and its identity is
`openai`'s: both share the store's answers, so an answer paid online is never paid again by
batch, nor the reverse. The custom_id of a line is its store key. A batch is its input file
uploaded through the Files API (purpose batch), then created for /v1/chat/completions within
24 h; its answers come in its output file, its failed and expired requests in its error file.
"""
from __future__ import annotations

import json
from typing import Iterator

from ctxret import secrets
from ctxret.contexts.llm.base import (AttemptFailed, BatchState, CallResult, first_bytes, line_bytes, results_line,
                                     sdk_call, short)
from ctxret.contexts.llm.openai_api import SETTINGS as OPENAI_SETTINGS, OpenAIBackend
from ctxret.errors import InputError

# contexts.llm's settings for this backend: the openai backend's (but server_threads: the one batch job
# holds no core while it waits), OpenAI itself by default
SETTINGS = {"required": ["model"], "properties": {
    **{k: v for k, v in OPENAI_SETTINGS["properties"].items() if k != "server_threads"},
    "model": {"type": "string", "minLength": 1,
              "description": "e.g. gpt-4.1-mini; priced at its row's batch prices"},
    "base_url": {"type": "string", "default": "",
                 "description": "empty: OpenAI (the SDK's default); a compatible server that implements the "
                                "Batch and Files APIs, with /v1"},
    "timeout_s": {"type": "number", "exclusiveMinimum": 0, "default": 300,
                  "description": "per API call (upload, submit, poll, results), not per batch"}}}

# The provider's limits per batch (docs: "Batch API", rate limits): requests and input file size.
MAX_REQUESTS = 50_000
MAX_BYTES = 200 * 1000 * 1000
ENDPOINT = "/v1/chat/completions"
MARKER = "ctxret_batch"   # the metadata key naming a batch's entry in the store's batch log
ENDED = ("completed", "failed", "expired", "cancelled")
# an ended batch's requests its files do not name: a canceled batch leaves its unprocessed ones out
# (any other: no_result)
UNANSWERED = {"cancelled": "canceled", "failed": "errored", "expired": "expired"}
# a request the batch did not run, as its error file's `error.code` says
NOT_RUN = {"batch_expired": "expired", "batch_cancelled": "canceled"}


class OpenAIBatchBackend(OpenAIBackend):
    name = "openai-batch"
    api = "openai"
    max_requests, max_bytes = MAX_REQUESTS, MAX_BYTES
    request_bytes = staticmethod(line_bytes)

    def __init__(self, settings: dict):
        if not settings["base_url"] and not secrets.key(settings["api_key_env"]):   # OpenAI itself
            raise InputError(f"llm backend {self.name!r}: environment variable {settings['api_key_env']} is not set "
                             f"(OpenAI needs it; a compatible server without keys: set base_url)")
        super().__init__(settings)

    def identity(self) -> dict:
        return {**super().identity(), "backend": "openai"}

    def request(self, key: str, system: str, user: str) -> dict:
        return {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": self.params(system, user)}

    def submit(self, requests: list[dict], marker: str) -> str:
        """A new batch of `requests` (request()'s), `marker` in its metadata: the JSONL file
        uploaded, the batch created; its id."""
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in requests).encode("utf-8")
        upload, _ = sdk_call(self.sdk, self.url, lambda: self.client.files.create(
            file=("ctxret-contexts.jsonl", data, "application/jsonl"), purpose="batch"))
        batch, _ = sdk_call(self.sdk, self.url, lambda: self.client.batches.create(
            input_file_id=upload.id, endpoint=ENDPOINT, completion_window="24h", metadata={MARKER: marker}))
        return batch.id

    def find(self, marker: str, n: int, since: str, known: set[str]) -> str | None:
        """The id of a recent batch whose metadata carries `marker`, or None."""
        page, _ = sdk_call(self.sdk, self.url, lambda: self.client.batches.list(limit=100))
        return next((b.id for b in page.data if b.id not in known and (b.metadata or {}).get(MARKER) == marker), None)

    def state(self, batch_id: str) -> BatchState:
        batch, _ = sdk_call(self.sdk, self.url, lambda: self.client.batches.retrieve(batch_id))
        c = batch.request_counts
        total, completed, failed = (c.total, c.completed, c.failed) if c is not None else (0, 0, 0)
        ended = batch.status in ENDED
        errors = batch.errors.data if batch.errors is not None and batch.errors.data else []
        note = "; ".join(f"{e.code}{f' (line {e.line})' if e.line else ''}: {e.message}" for e in errors)
        return BatchState("ended" if ended else batch.status,
                          {"processing": 0 if ended else max(0, total - completed - failed),
                           "succeeded": completed, "errored": failed, "expired": 0, "canceled": 0},
                          UNANSWERED.get(batch.status, "no_result"),
                          short(f"the batch {batch.status}: {note}") if note else "")

    def cancel(self, batch_id: str) -> None:
        sdk_call(self.sdk, self.url, lambda: self.client.batches.cancel(batch_id))

    def results(self, batch_id: str) -> Iterator[tuple[str | None, CallResult | AttemptFailed]]:
        """(custom_id, its CallResult or the AttemptFailed of its outcome) of an ended batch, line
        by line as its output file and then its error file stream in (the requests are made here,
        the lines read later), each line read on its own: one that cannot be read is (None,
        AttemptFailed)."""
        batch, _ = sdk_call(self.sdk, self.url, lambda: self.client.batches.retrieve(batch_id))
        streams = [self.lines(f) for f in (batch.output_file_id, batch.error_file_id) if f]
        return (self.outcome(batch_id, line) for stream in streams for line in stream if line.strip())

    def lines(self, file_id: str) -> Iterator[str]:
        response, _ = sdk_call(self.sdk, self.url, self.client.files.with_streaming_response.content(file_id).__enter__)

        def read():
            try:
                yield from response.iter_lines()
            finally:
                response.close()
        return read()

    def outcome(self, batch_id: str, text: str) -> tuple[str | None, CallResult | AttemptFailed]:
        key, item = results_line(text)
        if key is None:
            return key, item
        error, response = item.get("error"), item.get("response")
        if error:
            error = error if isinstance(error, dict) else {"message": str(error)}
            code = error.get("code") or "error"
            cause = NOT_RUN.get(code, "errored") if isinstance(code, str) else "errored"
            return key, AttemptFailed(cause, short(f"{code}: {error.get('message') or ''} (batch {batch_id})"), item)
        if not isinstance(response, dict):
            return key, AttemptFailed("malformed", f"a results line of batch {batch_id} without its response: "
                                                   f"{first_bytes(text, 80)}", item)
        body = response.get("body")
        if response.get("status_code") != 200:
            message = (body.get("error") or {}).get("message", "") if isinstance(body, dict) else ""
            return key, AttemptFailed("errored", short(f"HTTP {response.get('status_code')}: {message}"), item)
        if not isinstance(body, dict):
            return key, AttemptFailed("not_json", f"a result without a chat completion: {first_bytes(text, 80)}", item)
        try:   # built as the SDK builds an online answer: a malformed usage is read as 0, never a lost answer
            return key, self.read(self.sdk.types.chat.ChatCompletion.construct(**body), 0)
        except AttemptFailed as e:
            return key, e
