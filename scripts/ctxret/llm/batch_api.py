"""What the batch backends (anthropic-batch, openai-batch) share: a batch's state as the job
polls it, and the size of one request in the provider's byte limit."""
from __future__ import annotations

import json
from dataclasses import dataclass

OUTCOMES = ("succeeded", "errored", "canceled", "expired")


@dataclass
class BatchState:
    status: str               # "ended" once the batch has ended, else the API's own word
    counts: dict[str, int]    # processing and each of OUTCOMES
    unanswered: str = "expired"   # the cause of a request the ended batch's results do not name
    note: str = ""                # why the batch ended so (a failed batch's errors)

    @property
    def done(self) -> int:
        return sum(self.counts.get(k, 0) for k in OUTCOMES)


def line_bytes(request: dict) -> int:
    """A request's bytes as one JSON line."""
    return len(json.dumps(request, ensure_ascii=False).encode("utf-8")) + 1
