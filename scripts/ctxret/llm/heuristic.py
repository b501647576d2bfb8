"""heuristic: a free, deterministic context from the document itself (no LLM).

Title, the chunk's section and the first sentence of that section, in one sentence pattern of
the corpus language (Korean for ko, English for every other language). It is the control: how
much of an LLM context does plain structure already give?
"""
from __future__ import annotations

from ..chunktext import SENTENCE_END, blocks
from .base import Backend, CallResult, usage_dict

VERSION = 1  # bump when the wording changes: it is part of the identity
MAX_SENTENCE = 200


class HeuristicBackend(Backend):
    name = "heuristic"

    def __init__(self, settings: dict):
        self.language = settings["language"]

    def identity(self) -> dict:
        return {"backend": self.name, "version": VERSION, "language": self.language}

    def call(self, system: str, user: str, doc: dict, chunk: dict) -> CallResult:
        sentence = section_first_sentence(doc["body"], chunk["section"], chunk["start"])
        context = heuristic_context(doc["title"], chunk["section"], sentence, self.language)
        return CallResult(context=context, raw={"result": context, "sentence": sentence},
                          usage=usage_dict(), cost_usd=0.0, model="heuristic", duration_ms=0,
                          num_turns=0)


PATTERNS = {  # (section, its lead), (no section, its lead)
    "ko": (("이 부분은 「{title}」 글의 「{section}」 절에 속한다.", "절의 첫 문장"),
           ("이 부분은 「{title}」 글의 도입부에 속한다.", "글의 첫 문장")),
    "en": (("This part belongs to the section “{section}” of “{title}”.", "The section's first sentence"),
           ("This part belongs to the introduction of “{title}”.", "The text's first sentence")),
}


def heuristic_context(title: str, section: str, sentence: str, language: str) -> str:
    (with_section, lead), (intro, intro_lead) = PATTERNS.get(language, PATTERNS["en"])
    text, lead = (with_section, lead) if section else (intro, intro_lead)
    text = text.format(title=title, section=section)
    return f"{text} {lead}: {sentence}" if sentence else text


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
    sentence = " ".join(parts[0].split()) if parts else ""
    return sentence if len(sentence) <= MAX_SENTENCE else sentence[:MAX_SENTENCE - 1] + "…"
