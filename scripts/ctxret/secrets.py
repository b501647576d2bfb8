"""Key values never printed nor written, whatever a server echoes: every key the run reads from
the environment (the variables the config names as contexts.llm.api_key_env and
qdrant.api_key_env) is remembered, and `redact` replaces it in a line before it is printed,
logged or stored, by `[$VARIABLE]`."""
from __future__ import annotations

import os
from typing import Any

SHORTEST = 4   # a shorter value is no secret (anyone could guess it) and replacing it would garble every line
_KNOWN: dict[str, str] = {}   # key value -> its variable's name


def key(variable: str | None) -> str | None:
    """The value of the environment variable `variable` (None if unset or empty), remembered."""
    value = os.environ.get(variable or "") or None
    if value and len(value) >= SHORTEST:
        _KNOWN[value] = variable
    return value


def keep_keys_of(config: dict) -> None:
    """Remember the keys a completed config names, before anything can echo them."""
    key(((config.get("contexts") or {}).get("llm") or {}).get("api_key_env"))
    key((config.get("qdrant") or {}).get("api_key_env"))


def redact(text: str) -> str:
    for value in sorted(_KNOWN, key=len, reverse=True):
        text = text.replace(value, f"[${_KNOWN[value]}]")
    return text


def redact_all(value: Any) -> Any:
    """`value` (JSON: an answer as a service sent it) with every known key redacted in its strings."""
    if not _KNOWN:
        return value
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact_all(k): redact_all(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_all(v) for v in value]
    return value
