"""Gold passages found as people copy them (from a PDF, a web page, an editor).

A passage and a text are compared after this normalisation of both (docs/experiments.md,
Questions and gold):
1. Unicode NFKC: a no-break space and the other spaces become spaces, full-width letters and
   ligatures (`ﬁ`) their plain forms;
2. curly quotes as straight ones (‘ ’ ‚ ‛ as ', “ ” „ ‟ as "), the soft hyphen dropped;
3. a hyphen between two letters that ends a line, or is followed by one space (a PDF's lines as
   the files importer joins them), read both ways: a word broken at the line's end (`distrib-` /
   `uting` is `distributing`) or a hyphenated word (`well-` / `known` is `well-known`);
4. every run of whitespace, line breaks included, as one space, none at either end.
Letter case and every other character count as written.
"""
from __future__ import annotations

import re
import unicodedata

QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "“": '"', "”": '"', "„": '"', "‟": '"',
                        "\u00ad": None})
LINE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?:[ \t]*\n\s*| )(?=[^\W\d_])")
SPACE = re.compile(r"\s+")
SHOWN, SIDE = 40, 20   # characters shown of where a passage departs from its document, and around it


def readings(text: str) -> tuple[str, ...]:
    """The text normalised: one reading, or two when a hyphen ends a line (broken word, hyphenated)."""
    plain = unicodedata.normalize("NFKC", text).translate(QUOTES)
    return tuple(dict.fromkeys(SPACE.sub(" ", LINE_END_HYPHEN.sub(h, plain)).strip() for h in ("", "-")))


def holds(text_readings: tuple[str, ...], passage: str) -> bool:
    """Whether a text (its `readings`) holds the passage after normalisation."""
    return any(p in t for p in readings(passage) for t in text_readings)


def _longest(found, n: int) -> int:
    """The largest k <= n with found(k) (found is monotone: a shorter piece is found when a longer is)."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if found(mid) else (lo, mid - 1)
    return lo


def closest(passage: str, text: str) -> tuple[int, str]:
    """How near `text` comes to holding the passage (both normalised): the characters of its longest
    beginning or end found in the text, and where they depart, the differing parts in [brackets]:
    between its beginning and its end when both are found near each other, else after the longer."""
    p, t = readings(passage)[0], readings(text)[0]
    head = _longest(lambda k: p[:k] in t, len(p))
    tail = _longest(lambda k: p[len(p) - k:] in t, len(p))
    head_end = t.find(p[:head]) + head
    tail_at = t.find(p[len(p) - tail:], head_end) if tail else -1
    if head and tail and head + tail <= len(p) and 0 <= tail_at - head_end <= len(p) + SHOWN:
        doc, own = (head_end, tail_at), (head, len(p) - tail)
    elif head >= tail:
        doc, own = (head_end, min(len(t), head_end + len(p) - head)), (head, len(p))
    else:
        tail_at = t.find(p[len(p) - tail:])
        doc, own = (max(0, tail_at - (len(p) - tail)), tail_at), (0, len(p) - tail)
    return max(head, tail), f"the document has {_marked(t, *doc)} where the passage has {_marked(p, *own)}"


def _marked(s: str, a: int, b: int) -> str:
    """s[a:b] in brackets (at most SHOWN characters of it), with SIDE characters on each side."""
    inner = s[a:b][:SHOWN] + ("…" if b - a > SHOWN else "")
    return (f'"{"…" if a > SIDE else ""}{s[max(0, a - SIDE):a]}[{inner}]{s[b:b + SIDE]}'
            f'{"…" if b + SIDE < len(s) else ""}"')
