"""Every question's gold looked up in the kept documents while the workflow is read, before any
job runs: documents named by slug or by their own id (`guides/setup.md`, as outputs print it) are
written as slugs, a passage without a document gets the one document holding it, and what cannot
be found is one problem line each (file:line, id, what and where it departs).

Passages are matched after ctxret.text.passages' normalisation. A passage across a chunk boundary
depends on the chunker and is left to qcheck.
"""
from __future__ import annotations

from ctxret.importers import location
from ctxret.text.documents import own_id
from ctxret.text.passages import closest, holds, readings

NORMALISED = "even with spaces, line breaks, hyphens at line ends and quotes normalised"


class Documents:
    """The kept documents by slug and by own id, their units' documents, their texts' readings."""

    def __init__(self, docs: list[dict]):
        self.docs = {d["slug"]: d for d in docs}
        self.by_id = {own_id(d): d["slug"] for d in docs}
        self.unit_doc = {u["id"]: d["slug"] for d in docs for u in d.get("units", [])}
        self._readings: dict[str, tuple[str, ...]] = {}

    def slug(self, name: str) -> str | None:
        return name if name in self.docs else self.by_id.get(name)

    def name(self, slug: str) -> str:
        return own_id(self.docs[slug])

    def text(self, slug: str) -> str:
        d = self.docs[slug]
        return f"{d['title']}\n{d['body']}"

    def holds(self, slug: str, passage: str) -> bool:
        if passage in self.text(slug):
            return True
        if slug not in self._readings:
            self._readings[slug] = readings(self.text(slug))
        return holds(self._readings[slug], passage)

    def holding(self, passage: str) -> list[str]:
        return [s for s in self.docs if self.holds(s, passage)]


def passage_problem(passage: str, slug: str | None, docs: Documents) -> tuple[str | None, str | None]:
    """(the passage's document, None) or (None, why not: one phrase)."""
    if slug is not None:
        if docs.holds(slug, passage):
            return slug, None
        return None, f"passage missing: not in {docs.name(slug)}, {NORMALISED}; {closest(passage, docs.text(slug))[1]}"
    found = docs.holding(passage)
    if len(found) == 1:
        return found[0], None
    if found:
        return None, (f"passage in {len(found)} documents ({', '.join(map(docs.name, found[:5]))}"
                      f"{', ...' if len(found) > 5 else ''}): name its document in gold_doc")
    near = max(docs.docs, key=lambda s: closest(passage, docs.text(s))[0])
    return None, (f"passage missing: in no document, {NORMALISED}; the closest is {docs.name(near)}: "
                  f"{closest(passage, docs.text(near))[1]}")


def locate_gold(questions: list[dict], docs: list[dict]) -> tuple[list[dict], list[str]]:
    """The questions with their gold's documents as slugs (`gold_doc` read into `gold_slug`, a
    passage alone given its document), and one problem line for each gold that is not there."""
    found = Documents(docs)
    problems: list[str] = []
    out = [_located(q, found, problems) for q in questions]
    return out, problems


def _located(q: dict, docs: Documents, problems: list[str]) -> dict:
    q = dict(q)
    def problem(why: str) -> None:
        problems.append(f"{location(q)}: {q['id']}: {why}")
    def doc(name: str) -> str:
        slug = docs.slug(name)
        if slug is None:
            problem(f"gold document missing: no document {name!r} in the corpus")
        return slug or name
    named = q.pop("gold_doc", None) or q.get("gold_slug")
    slug = doc(named) if named is not None else None
    if slug is not None:
        q["gold_slug"] = slug
    if "gold_passage" in q and (slug is None or slug in docs.docs):
        passages = [q["gold_passage"]] if isinstance(q["gold_passage"], str) else q["gold_passage"]
        places = []
        for p in passages:
            place, why = passage_problem(p, slug, docs)
            if why:
                problem(why)
            places.append(place)
        alone = set(places) - {None}
        if slug is None and len(alone) > 1:
            problem(f"its passages are in {len(alone)} documents ({', '.join(sorted(map(docs.name, alone)))}): "
                    f"one question's passages name one document; give gold_doc, or split the question")
        elif slug is None and alone:
            q["gold_slug"] = alone.pop()
    if "gold_chunks" in q:
        for group in (g if isinstance(g, list) else [g] for g in q["gold_chunks"]):
            for unit in group:
                if unit not in docs.unit_doc:
                    problem(f"unknown chunk id {unit!r}")
                elif slug in docs.docs and docs.unit_doc[unit] != slug:
                    problem(f"chunk not in its document: {unit!r} is in {docs.name(docs.unit_doc[unit])}, "
                            f"not {docs.name(slug)}")
    if "gold_docs" in q:
        gold = q["gold_docs"]
        q["gold_docs"] = ({doc(d): g for d, g in gold.items()} if isinstance(gold, dict) else
                          [[doc(d) for d in g] if isinstance(g, list) else doc(g) for g in gold])
    if "gold_any" in q:
        q["gold_any"] = [_alternative(a, slug, docs, problem) for a in q["gold_any"]]
    return q


def _alternative(a, slug: str | None, docs: Documents, problem) -> dict:
    """One alternative of gold_any: {passage, slug}, {chunk} or {doc} (a slug)."""
    if isinstance(a, str):
        if slug is not None and slug not in docs.docs:   # its document missing: said once, for the question
            return {"passage": a, "slug": None}
        place, why = passage_problem(a, slug, docs)
        if why:
            problem(why)
        return {"passage": a, "slug": place or slug}
    if "chunk" in a:
        if a["chunk"] not in docs.unit_doc:
            problem(f"unknown chunk id {a['chunk']!r}")
        return a
    found = docs.slug(a["doc"])
    if found is None:
        problem(f"gold document missing: no document {a['doc']!r} in the corpus")
    return {"doc": found or a["doc"]}
