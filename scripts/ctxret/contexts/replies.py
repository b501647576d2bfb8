"""The checks a paid reply passes before it becomes a context (contexts.reply in
config/schema.yaml): not empty, no longer than max_chars (the prompt asks for a short succinct
context), no control characters but newline, tab and carriage return, not a refusal (one of
refusal_patterns, each matched case-insensitively at the reply's start). A rejected reply is a
failed attempt of its cause, retried as any other, never stored or embedded as a context."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ctxret.contexts.llm import AttemptFailed, CallResult, short

ALLOWED_CONTROLS = "\n\t\r"


@dataclass(frozen=True)
class ReplyChecks:
    max_chars: int
    refusals: tuple[re.Pattern, ...]

    @classmethod
    def of(cls, reply: dict) -> "ReplyChecks":
        """From contexts.reply, completed by the config schema (which checks every pattern)."""
        return cls(int(reply["max_chars"]), tuple(re.compile(p, re.IGNORECASE) for p in reply["refusal_patterns"]))

    def check(self, result: CallResult) -> None:
        """AttemptFailed of the first check `result`'s text fails."""
        problem = self.problem(result.context)
        if problem is not None:
            raise AttemptFailed(*problem)

    def problem(self, text: str) -> tuple[str, str] | None:
        """(cause, detail) of the first check `text` fails, or None."""
        if not text.strip():
            return "empty", "a reply of whitespace only"
        if len(text) > self.max_chars:
            return "too_long", (f"a reply of {len(text):,} characters, over contexts.reply.max_chars "
                                f"{self.max_chars:,}: {short(text, 80)!r}")
        bad = next((i for i, ch in enumerate(text)
                    if ch not in ALLOWED_CONTROLS and unicodedata.category(ch) == "Cc"), None)
        if bad is not None:
            return "control_chars", f"control character U+{ord(text[bad]):04X} at character {bad + 1:,} of the reply"
        pattern = next((p for p in self.refusals if p.match(text)), None)
        if pattern is not None:
            return "refusal", f"matches contexts.reply.refusal_patterns {pattern.pattern!r}: {short(text, 120)!r}"
        return None
