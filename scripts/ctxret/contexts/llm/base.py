"""What every backend shares: the result of one call, one failed attempt, the base class; the
token counts every answer reports, as the Anthropic API names them, read without ever failing
(what a service pays for is never lost to its shape); and what the batch backends share (a
batch's state as the job polls it, a request's size in the provider's byte limit)."""
from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass
from typing import Any

from ctxret.secrets import redact

# errored, expired, canceled: how a batch API ends a request it did not answer; no_result: a
# request an ended batch's results leave out (or name only in a line that cannot be read);
# malformed: an answer (or its results line) that cannot be read; too_long, control_chars, refusal: a reply the checks reject
# (ctxret.contexts.replies)
CAUSES = ("is_error", "empty", "not_json", "timeout", "rate_limit", "http_error", "exit_status",
          "errored", "expired", "canceled", "no_result", "malformed", "too_long", "control_chars", "refusal")


@dataclass
class CallResult:
    context: str            # the text to prepend (stripped)
    raw: dict               # the backend's answer as is
    usage: dict             # USAGE_KEYS -> int (0 when unknown)
    cost_usd: float | None  # claude-cli reports it; APIs: None (the ledger prices them)
    model: str              # the model name the service reports
    duration_ms: int
    num_turns: int
    usage_problem: str | None = None   # what was wrong with the usage or cost reported (then counted 0)
    cache_reported: bool = True        # False: the server said nothing of its prompt cache (cached tokens 0)


class AttemptFailed(Exception):
    """One discarded attempt; `cause` is one of CAUSES. `raw` is the answer, if one came. A key
    the detail echoes is redacted (the detail is stored)."""

    def __init__(self, cause: str, detail: str, raw: dict | None = None):
        if cause not in CAUSES:
            raise ValueError(f"unknown cause {cause!r}")
        detail = redact(detail)
        super().__init__(f"{cause}: {detail}")
        self.cause = cause
        self.detail = detail
        self.raw = raw


class Unreachable(Exception):
    """The service cannot be reached or refuses this client (connection refused, an unknown host,
    401, 403 or another 4xx): asking again will not help, so the run stops at once. A key the
    message echoes is redacted."""

    def __init__(self, message: str):
        super().__init__(redact(message))


class Backend:
    """One way of asking for a chunk's context. Subclasses set `name`."""

    name = ""

    def identity(self) -> dict:
        """Everything besides prompt, document and chunk that determines the answer."""
        raise NotImplementedError

    def call(self, system: str, user: str, doc: dict, chunk: dict) -> CallResult:
        """One attempt; raises AttemptFailed (worth another attempt) or Unreachable."""
        raise NotImplementedError


class SdkBackend(Backend):
    """A backend over an official SDK (anthropic, openai). The SDK (over a second to import) is
    loaded on the first call: a document answered from the store never pays for it."""

    client_class = ""   # the SDK's client class
    fields: tuple[str, ...] = ()   # what every answer of the API holds

    def __init__(self, settings: dict, api_key: str):
        """`settings`: contexts.llm, checked and completed by the config schema."""
        self.model, self.max_tokens, self.temperature = settings["model"], settings["max_tokens"], settings["temperature"]
        self.api_key, self.base_url, self.timeout_s = api_key, settings["base_url"] or None, settings["timeout_s"]

    @staticmethod
    def load_sdk():
        """The SDK's module (an import statement, so that the stage's env check sees it)."""
        raise NotImplementedError

    @functools.cached_property
    def sdk(self):
        return self.load_sdk()

    @functools.cached_property
    def client(self):
        return getattr(self.sdk, self.client_class)(base_url=self.base_url, api_key=self.api_key, max_retries=0,
                                                    timeout=self.timeout_s)

    def identity(self) -> dict:
        return {"backend": self.name, "model": self.model, "max_tokens": self.max_tokens,
                "temperature": self.temperature}

    @property
    def url(self) -> str:
        return self.base_url or str(self.client.base_url)

    def call(self, system: str, user: str, doc: dict, chunk: dict) -> CallResult:
        response, duration_ms = sdk_call(self.sdk, self.url, lambda: self.create(system, user))
        if isinstance(response, str):  # the SDK hands back a body it could not read as JSON
            raise AttemptFailed("not_json", f"{self.url} answered with {first_bytes(response)}, not the API's JSON")
        if any(getattr(response, field, None) is None for field in self.fields):  # JSON, not the API's answer
            sent = json.dumps(response.model_dump(mode="json", exclude_none=True, warnings=False), ensure_ascii=False)
            raise AttemptFailed("not_json", f"{self.url} answered JSON without the API's fields "
                                            f"({', '.join(self.fields)}): {first_bytes(sent)}")
        return self.read(response, duration_ms)

    def read(self, response, duration_ms: int) -> CallResult:
        """result(), never an exception but AttemptFailed: an answer was paid for, whatever its shape."""
        try:
            return self.result(response, duration_ms)
        except AttemptFailed:
            raise
        except Exception as e:   # noqa: BLE001 - a shape result() does not know: a failed attempt, named
            raw = response.model_dump(mode="json", warnings=False)
            raise AttemptFailed("malformed", f"{self.url} answered {first_bytes(json.dumps(raw, ensure_ascii=False))}, "
                                             f"which cannot be read ({type(e).__name__}: {short(str(e), 80)})") from None

    def create(self, system: str, user: str):
        """The SDK's request for one chunk."""
        raise NotImplementedError

    def result(self, response, duration_ms: int) -> CallResult:
        """The CallResult of the SDK's response; AttemptFailed when it holds no text."""
        raise NotImplementedError


def first_bytes(body: str, limit: int = 120) -> str:
    return "an empty body" if not body.strip() else f"{short(body, limit)!r}"


def short(text: str, limit: int = 300) -> str:
    """One line of at most `limit` characters for an attempt's detail."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def sdk_call(sdk, url: str, request) -> tuple[Any, int]:
    """(response, duration_ms) of request() through an official SDK module (anthropic and openai
    share these exception classes) talking to `url`: 429, 5xx, timeouts and malformed answers
    become the AttemptFailed of their cause; a refused connection, an unknown host and other 4xx
    become Unreachable, naming the URL."""
    started = time.monotonic()
    try:
        response = request()
    except sdk.RateLimitError as e:
        raise AttemptFailed("rate_limit", short(f"HTTP {e.status_code}: {e.message}")) from None
    except sdk.APITimeoutError as e:
        raise AttemptFailed("timeout", short(str(e))) from None
    except sdk.APIStatusError as e:
        if e.status_code >= 500:
            raise AttemptFailed("http_error", short(f"HTTP {e.status_code}: {e.message}")) from None
        raise Unreachable(f"{url} answered HTTP {e.status_code}: {short(e.message)}") from None
    except sdk.APIConnectionError as e:  # refused, unknown host, TLS
        raise Unreachable(f"{url} cannot be reached: {short(str(e.__cause__ or e))}") from None
    except sdk.APIError as e:  # a malformed answer
        raise AttemptFailed("http_error", short(f"{type(e).__name__}: {e}")) from None
    except ValueError as e:  # a body the SDK could not decode as the JSON it announced
        raise AttemptFailed("not_json", f"{url} answered with {first_bytes(getattr(e, 'doc', None) or '')}, "
                                        f"not the API's JSON ({short(str(e), 80)})") from None
    return response, int((time.monotonic() - started) * 1000)


# The token counts of an answer
INPUT_KINDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def zero_usage() -> dict:
    return dict.fromkeys(USAGE_KEYS, 0)


def read_counts(reported: Any, keys: tuple[str, ...], required: tuple[str, ...] = ()) -> tuple[dict, list[str]]:
    """({key: count} of `keys` in a reported usage mapping, what is wrong with it): a count that
    is not a whole number >= 0 (a string, a float, a negative, true) is 0 and named, as is a
    `required` one missing or null, and a usage that is not a mapping at all."""
    if not isinstance(reported, dict):
        what = "missing" if reported is None else f"a {type(reported).__name__} ({str(reported)[:40]!r})"
        return dict.fromkeys(keys, 0), [f"usage is {what}, not token counts"]
    counts, problems = {}, []
    for k in keys:
        value = reported.get(k)
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        counts[k] = value if ok else 0
        if value is None and k in required:
            problems.append(f"{k} missing")
        elif value is not None and not ok:
            problems.append(f"{k} {str(value)[:40]!r} is not a token count")
    return counts, problems


def problem_line(problems: list[str]) -> str | None:
    """The problems of one answer's usage as its record's `usage_problem`, or None."""
    return "; ".join(problems) or None


# What the batch backends share
OUTCOMES = ("succeeded", "errored", "canceled", "expired")


@dataclass
class BatchState:
    status: str               # "ended" once the batch has ended, else the API's own word
    counts: dict[str, int]    # processing and each of OUTCOMES
    unanswered: str = "no_result"   # the cause of a request the ended batch's results do not name
    note: str = ""                # why the batch ended so (a failed batch's errors)

    @property
    def done(self) -> int:
        return sum(self.counts.get(k, 0) for k in OUTCOMES)


def results_line(text: str) -> tuple[str | None, dict | AttemptFailed]:
    """(custom_id, the line's object) of one line of a batch's results; (None, AttemptFailed) for
    a line that is not a JSON object with a custom_id (garbage, a line cut short)."""
    try:
        item = json.loads(text)
    except ValueError:
        return None, AttemptFailed("malformed", f"a results line that is not JSON: {first_bytes(text, 80)}")
    key = item.get("custom_id") if isinstance(item, dict) else None
    if not isinstance(key, str):
        return None, AttemptFailed("malformed", f"a results line without a custom_id: {first_bytes(text, 80)}")
    return key, item


def line_bytes(request: dict) -> int:
    """A request's bytes as one JSON line."""
    return len(json.dumps(request, ensure_ascii=False).encode("utf-8")) + 1
