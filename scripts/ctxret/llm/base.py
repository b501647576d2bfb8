"""What every backend shares: the result of one call, one failed attempt, the base class."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..usage import USAGE_KEYS

CAUSES = ("is_error", "empty", "not_json", "timeout", "rate_limit", "http_error", "exit_status")
REQUIRED = object()


@dataclass
class CallResult:
    context: str            # the text to prepend (stripped)
    raw: dict               # the backend's answer as is
    usage: dict             # USAGE_KEYS -> int (0 when unknown)
    cost_usd: float | None  # claude-cli reports it; APIs: None (the ledger prices them)
    model: str              # the model name the service reports
    duration_ms: int
    num_turns: int


class AttemptFailed(Exception):
    """One discarded attempt; `cause` is one of CAUSES. `raw` is the answer, if one came."""

    def __init__(self, cause: str, detail: str, raw: dict | None = None):
        if cause not in CAUSES:
            raise ValueError(f"unknown cause {cause!r}")
        super().__init__(f"{cause}: {detail}")
        self.cause = cause
        self.detail = detail
        self.raw = raw


class Backend:
    """One way of asking for a chunk's context. Subclasses set `name`."""

    name = ""

    def identity(self) -> dict:
        """Everything besides prompt, document and chunk that determines the answer."""
        raise NotImplementedError

    def call(self, system: str, user: str, doc: dict, chunk: dict) -> CallResult:
        """One attempt; raises AttemptFailed."""
        raise NotImplementedError


def usage_dict(**counts: Any) -> dict:
    """The four token counts as ints; missing or None counts are 0."""
    return {k: int(counts.get(k) or 0) for k in USAGE_KEYS}


def short(text: str, limit: int = 300) -> str:
    """One line of at most `limit` characters for an attempt's detail."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def option(settings: dict, key: str, kinds: type | tuple[type, ...], default: Any = REQUIRED) -> Any:
    """settings[key] checked against `kinds` (bool is never a number); InputError otherwise."""
    where = f"llm backend {settings.get('backend')!r}"
    if key not in settings or settings[key] is None:
        if default is REQUIRED:
            raise InputError(f"{where}: setting {key!r} is required")
        return default
    value = settings[key]
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise InputError(f"{where}: setting {key!r} must be {names}, got {value!r}")
    return value


def positive(settings: dict, key: str, default: Any) -> Any:
    value = option(settings, key, (int, float), default)
    if value <= 0:
        raise InputError(f"llm backend {settings.get('backend')!r}: setting {key!r} must be > 0")
    return value


def sdk_call(sdk, request) -> tuple[Any, int]:
    """(response, duration_ms) of request() through an official SDK module (anthropic and openai
    share these exception classes); a failure becomes the AttemptFailed of its cause."""
    started = time.monotonic()
    try:
        response = request()
    except sdk.RateLimitError as e:
        raise AttemptFailed("rate_limit", short(f"HTTP {e.status_code}: {e.message}")) from None
    except sdk.APITimeoutError as e:
        raise AttemptFailed("timeout", short(str(e))) from None
    except sdk.APIStatusError as e:
        raise AttemptFailed("http_error", short(f"HTTP {e.status_code}: {e.message}")) from None
    except sdk.APIError as e:  # connection failures, malformed responses
        raise AttemptFailed("http_error", short(f"{type(e).__name__}: {e}")) from None
    return response, int((time.monotonic() - started) * 1000)
