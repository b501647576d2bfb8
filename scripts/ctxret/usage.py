"""The token counts every context answer reports, as the Anthropic API names them, and how a
reported usage is read without ever failing: what a service pays for is never lost to its shape."""
from __future__ import annotations

from typing import Any

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
