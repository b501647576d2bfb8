"""The context prompt: a template file in two parts, the system prompt and the user message.

    # comment lines (before the first marker only)
    [system]
    <document>
    {{WHOLE_DOCUMENT}}
    </document>
    [user]
    Here is the chunk ...
    <chunk>
    {{CHUNK_CONTENT}}
    </chunk>
    Please give ...

A line `[system]` or `[user]` opens a part; each part is the text up to the next marker or the
end, trailing blank lines dropped. The document goes once, in the system part
({{WHOLE_DOCUMENT}} exactly once there, nowhere else); the user part holds {{CHUNK_CONTENT}}
and gets "\\n" + the extra sentence. The sha256 of the two parts (comments aside) is part of
every context's cache key.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from ctxret.errors import InputError
from ctxret.fileio import canonical_json, read_text, sha256_text

DOCUMENT, CHUNK = "{{WHOLE_DOCUMENT}}", "{{CHUNK_CONTENT}}"
MARKERS = {"[system]": "system", "[user]": "user"}


@dataclass(frozen=True)
class Prompt:
    system: str  # template of the system prompt: holds DOCUMENT
    user: str    # template of the user message: holds CHUNK

    @property
    def sha256(self) -> str:
        return sha256_text(canonical_json({"system": self.system, "user": self.user}))

    def system_for(self, document: str) -> str:
        return self.system.replace(DOCUMENT, document)

    def user_for(self, chunk_text: str, extra_sentence: str) -> str:
        text = self.user.replace(CHUNK, chunk_text)
        return f"{text}\n{extra_sentence}" if extra_sentence else text


def parse_prompt(text: str, where: str = "prompt") -> Prompt:
    """The two parts of a template file's text; InputError naming `where` (and the line)."""
    parts: dict[str, list[str]] = {}
    current = None
    for lineno, line in enumerate(text.splitlines(), 1):
        marker = MARKERS.get(line.strip())
        if marker:
            if marker in parts:
                raise InputError(f"{where}:{lineno}: a second {line.strip()} part")
            parts[marker], current = [], marker
        elif current:
            parts[current].append(line)
        elif line.strip() and not line.startswith("#"):
            raise InputError(f"{where}:{lineno}: text before the first [system] or [user] line "
                             f"(only # comments may come first)")
    missing = [m for m, part in MARKERS.items() if part not in parts]
    if missing:
        raise InputError(f"{where}: no {' or '.join(missing)} part (see the format in ctxret/prompt.py)")
    system, user = ("\n".join(parts[p]).rstrip("\n") for p in ("system", "user"))
    if system.count(DOCUMENT) != 1 or DOCUMENT in user:
        raise InputError(f"{where}: {DOCUMENT} must appear exactly once, in the [system] part")
    if CHUNK not in user or CHUNK in system:
        raise InputError(f"{where}: {CHUNK} must appear in the [user] part and not in [system]")
    return Prompt(system, user)


def read_prompt(path: str | os.PathLike) -> Prompt:
    return parse_prompt(read_text(path), str(path))   # missing, unreadable, not UTF-8: one line
