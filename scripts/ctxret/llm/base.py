"""What every backend shares: the result of one call, one failed attempt, the base class."""
from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass
from typing import Any

from ..secrets import redact
from ..usage import USAGE_KEYS  # noqa: F401 - re-exported by ctxret.llm

# errored, expired, canceled: how a batch API ends a request it did not answer; malformed: an
# answer whose text cannot be read; too_long, control_chars, refusal: a reply the checks reject
# (ctxret.replies)
CAUSES = ("is_error", "empty", "not_json", "timeout", "rate_limit", "http_error", "exit_status",
          "errored", "expired", "canceled", "malformed", "too_long", "control_chars", "refusal")


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
