"""heuristic: a free, deterministic context from the document itself (no LLM).

What the document's structure says about the chunk, in one sentence pattern of the corpus
language (its record's `x1` in ctxret.languages; English's for a language without one):
- a chunk in a section: the title, the section and the section's first sentence;
- a chunk before the first `## ` heading of a document that has headings: its introduction, and
  the introduction's first sentence;
- a document without headings (an imported article, a SQuAD title): the title and the sentences
  just before and just after the chunk, never a false "introduction".

Each pattern comes with shorter forms (the lead sentences dropped, then its head sentence alone,
then nothing): `fits(context, chunk)` picks the fullest form that keeps the chunk's X1 text within
every truncating model's limit wherever its T1 fits (ctxret.stages.contexts builds it from the model
slots). It is the control: how much of an LLM context does plain structure already give?
"""
from __future__ import annotations

import functools
from collections import Counter
from typing import Callable

from ctxret import languages
from ctxret.contexts.llm.base import Backend, CallResult, zero_usage
from ctxret.text.chunk_text import SENTENCE_END, blocks, sentence_spans

VERSION = 2  # bump when the wording or the choice of form changes: it is part of the identity
MAX_SENTENCE = 200
NEIGHBOUR_WINDOW = 2000  # characters searched for the sentence before or after a chunk
SETTINGS = {"properties": {"language": {"type": "string"}}}  # X1's, set by the plan (ctxret.contexts.llm.free_context)



def fits_always(context: str, chunk: dict) -> bool:
    return True


class HeuristicBackend(Backend):
    name = "heuristic"

    def __init__(self, settings: dict, fits: Callable[[str, dict], bool] = fits_always):
        self.language = settings["language"]
        self.fits = fits
        self.chosen: Counter = Counter()  # which form each call took (form_name)

    def identity(self) -> dict:
        return {"backend": self.name, "version": VERSION, "language": self.language}

    def call(self, system: str, user: str, doc: dict, chunk: dict) -> CallResult:
        forms = context_forms(doc, chunk, self.language)
        context = next((c for c in forms if self.fits(c, chunk)), forms[-2])  # T1 alone over: the head
        self.chosen[form_name(forms, context)] += 1
        return CallResult(context=context, raw={"result": context, "forms": len(forms),
                                                "form": forms.index(context)},
                          usage=zero_usage(), cost_usd=0.0, model="heuristic", duration_ms=0,
                          num_turns=0)


def context_forms(doc: dict, chunk: dict, language: str) -> list[str]:
    """The chunk's contexts from the fullest to the shortest; the last is empty."""
    words = languages.language(language).x1 or languages.language("en").x1
    section, body = chunk["section"], doc["body"]
    name = words["doc"].format(title=doc["title"]) if doc["title"] else words["untitled"]
    if section or has_headings(body):
        kind = "section" if section else "intro"
        head = words[kind].format(doc=name, section=section)
        lead = section_first_sentence(body, section, chunk["start"])
        leads = [f"{words[f'{kind}_lead']}: {lead}"] if lead else []
        return [*([" ".join([head, *leads])] if leads else []), head, ""]
    head = words["document"].format(doc=name)
    before, after = neighbour_sentences(body, chunk["start"], chunk["end"])
    parts = [p for p in (f"{words['before']}: {before}" if before else "",
                         f"{words['after']}: {after}" if after else "") if p]
    fuller = [" ".join([head, *parts])] if parts else []
    middle = [f"{head} {parts[0]}"] if len(parts) == 2 else []
    return [*fuller, *middle, head, ""]


def form_name(forms: list[str], context: str) -> str:
    """fullest, shorter (some lead sentences dropped), head (its first sentence alone) or none."""
    if context == forms[0]:
        return "fullest"
    return "none" if not context else "head" if context == forms[-2] else "shorter"


@functools.lru_cache(maxsize=4)
def has_headings(body: str) -> bool:
    """Asked once per chunk, answered once per document (its chunks come one after another)."""
    return any(b.heading is not None for b in blocks(body))


def neighbour_sentences(body: str, start: int, end: int) -> tuple[str, str]:
    """The last sentence ending before `start` and the first starting after `end` ("" if none)."""
    before = sentence_spans(body, max(0, start - NEIGHBOUR_WINDOW), start)
    after = sentence_spans(body, end, min(len(body), end + NEIGHBOUR_WINDOW))
    last = body[before[-1][0]:before[-1][1]] if before else ""
    first = body[after[0][0]:after[0][1]] if after else ""
    return capped(last), capped(first)


def section_first_sentence(body: str, section: str, start: int) -> str:
    """First sentence (<= 200 chars) of the first paragraph of the `## {section}` holding
    offset `start` (the text before any heading when section is empty); "" if none."""
    candidate: str | None = None  # first paragraph of the latest matching section
    in_match = section == ""
    for block in blocks(body):
        if block.heading is not None:
            if block.start > start:
                break
            in_match = block.heading == section
            if in_match:
                candidate = None
            continue
        text = body[block.start:block.end].strip()
        if in_match and candidate is None and not text.startswith("```"):
            candidate = text
    return first_sentence(candidate or "")


def first_sentence(paragraph: str) -> str:
    parts = [p.strip() for p in SENTENCE_END.split(paragraph) if p.strip()]
    return capped(parts[0]) if parts else ""


def capped(sentence: str) -> str:
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= MAX_SENTENCE else sentence[:MAX_SENTENCE - 1] + "…"
