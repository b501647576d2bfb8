"""Documents as every corpus format delivers them: slugs, records, the kept subset.

A slug names a document in file names and wildcards, so it must be safe as one path component:
1 to 100 characters, none of them whitespace, a control character or one of / \\ : * ? " < > | { } [ ],
and not starting with '.' or '-'. Letters of any script are fine (`임종석`, `마음작용_(대승오온론)`).
Importers derive slugs from their own ids or titles with `safe_slug`.
"""
from __future__ import annotations

import random
import re

from ctxret.errors import InputError
from ctxret.fileio import sha256_text
from ctxret.text.chunk_text import blocks

CLAUSE = re.compile(r"^제\s*\d+\s*조(?:의\s*\d+)?", re.MULTILINE)  # 제1조(목적), 제3조의2
UNSAFE = r'\s/\\:*?"<>|{}\[\]\x00-\x1f\x7f'
SLUG = re.compile(rf"(?![.-])[^{UNSAFE}]{{1,100}}")
SLUG_RULE = ("1-100 characters, no whitespace, control characters or / \\ : * ? \" < > | { } [ ], "
             "not starting with '.' or '-'")


def check_slug(slug: object, where: str) -> str:
    if not isinstance(slug, str) or not SLUG.fullmatch(slug):
        raise InputError(f"{where}: slug {slug!r} is not safe as a file name ({SLUG_RULE})")
    return slug


def safe_slug(name: str) -> str:
    """A slug for an arbitrary id or title: unsafe characters become '_' (deterministic)."""
    slug = re.sub(rf"[{UNSAFE}]+", "_", name.strip()).lstrip(".-")[:100]
    return slug or "_"


def document(slug: str, title: str, body: str, *, tags: list[str] | None = None,
             units: list[dict] | None = None, meta: dict | None = None) -> dict:
    """One docs.jsonl record. `units` are the source's own parts as body spans
    ({id, start, end, section?}: paragraphs, given chunks); `meta` is kept as it came."""
    doc = {"slug": slug, "title": title, "tags": list(tags or []), "body": body,
           "sha256": sha256_text(body), "chars": len(body)}
    if units is not None:
        doc["units"] = units
    if meta:
        doc["meta"] = meta
    return doc


def own_id(doc: dict) -> str:
    """A document's own id, as the source gives it and every output a user reads prints it (else its slug)."""
    return str((doc.get("meta") or {}).get("id", doc["slug"]))


def joined(parts: list[tuple[str, dict]]) -> tuple[str, list[dict]]:
    """(body, units): texts joined by blank lines, each a unit {**info, start, end} of the body."""
    units, pos = [], 0
    for text, info in parts:
        units.append({**info, "start": pos, "end": pos + len(text)})
        pos += len(text) + 2
    return "\n\n".join(text for text, _ in parts), units


def units_of(doc: dict) -> list[dict]:
    """A document's units [{id, start, end, section}]: its source's own (paragraphs, given
    chunks) when it has them; else its `## ` sections (the text before the first heading is a
    unit of its own, section ""); else, for a regulation-style text, its clauses (lines opening
    `제N조`); else the whole body."""
    if "units" in doc:
        return [{"section": "", **u} for u in doc["units"]]
    body, slug = doc["body"], doc["slug"]
    heads = [(b.start, b.heading) for b in blocks(body) if b.heading is not None]
    if not heads:
        clauses = [(m.start(), body[m.start():].split("\n", 1)[0].strip()) for m in CLAUSE.finditer(body)]
        heads = clauses if len(clauses) > 1 else []
    starts = [(0, "")] + heads if not heads or heads[0][0] > 0 else heads
    units = []
    for (start, section), (end, _) in zip(starts, [*starts[1:], (len(body), "")]):
        end = start + len(body[start:end].rstrip())
        if body[start:end].strip():
            units.append({"id": f"{slug}#s{len(units)}", "start": start, "end": end, "section": section})
    return units


def unit_at(units: list[dict], offset: int) -> dict:
    """The unit holding character `offset` (the last one starting at or before it)."""
    return next((u for u in reversed(units) if u["start"] <= offset), units[0])


def excluded(tags: list[str], exclude_tags: list[str]) -> bool:
    return bool(set(tags) & set(exclude_tags))


def select(docs: list[dict], exclude_tags: list[str], min_chars: int, sample: int, seed: int) -> list[dict]:
    """The kept documents, in corpus order: no excluded tag, at least `min_chars` characters,
    then (sample > 0) a seeded random sample of `sample` of them (random.Random(seed).sample
    over the eligible slugs in corpus order)."""
    eligible = [d for d in docs if not excluded(d["tags"], exclude_tags) and d["chars"] >= min_chars]
    if 0 < sample < len(eligible):
        chosen = set(random.Random(seed).sample([d["slug"] for d in eligible], sample))
        eligible = [d for d in eligible if d["slug"] in chosen]
    return eligible


def unique_slugs(docs: list[dict], where: str) -> None:
    seen: dict[str, str] = {}
    for d in docs:
        source = own_id(d)
        if d["slug"] in seen:
            raise InputError(f"{where}: documents {seen[d['slug']]!r} and {source!r} share the slug "
                             f"{d['slug']!r}")
        seen[d["slug"]] = source
