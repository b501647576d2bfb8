"""ctxret.languages: what a corpus language decides, one record per language (`LANGUAGES`), and
how the language is found from the text (`recognition`). A record gives the prompt's extra
sentence, the BM25 analyser, X1's wording, the script a context is checked for and the report
language; `corpus.language` (stated, or found: `auto`) picks it. A language is one module here
(its record as plain data) and one line in `LANGUAGES`. May import the shared leaves only.
"""
from dataclasses import dataclass, field

from ctxret.languages import (chinese, dutch, english, french, german, italian, japanese, korean, portuguese, russian,
                              spanish)
from ctxret.languages.recognition import (AUTO, HANGUL, described, documents_by_language, found_language, hangul_share,
                                          letters_by_script, script_warning, shares, short_text_in,
                                          stated_language)

__all__ = ["AUTO", "HANGUL", "LANGUAGES", "Language", "described", "documents_by_language", "found_language",
           "hangul_share", "language", "letters_by_script", "script_warning", "shares", "short_text_in",
           "stated_language"]


@dataclass(frozen=True)
class Language:
    code: str                     # ISO 639-1, as corpus.language states it
    name: str | None              # in English: the prompt's extra sentence ("Answer in Korean, ...")
    analyser: str = "identifiers"  # the BM25 analyser (ctxret.retrieval.bm25.ANALYSERS)
    report: str = "en"            # the report language (ctxret.presentation.wording) unless report.language is set
    names: dict[str, str] = field(default_factory=dict)  # its name in each report language (the titles)
    x1: dict[str, str] | None = None   # X1's wording (ctxret.contexts.llm.heuristic); None: English's
    checked_script: str | None = None  # the script a context's share of is reported (ctxlen), e.g. hangul

    def extra_sentence(self) -> str:
        """The default extra sentence of the context prompt (ko: the reference's sentence)."""
        return (f"Answer in {self.name}, the language of the document." if self.name
                else "Answer in the language of the document.")


LANGUAGES = {record["code"]: Language(**record) for record in (
    korean.KOREAN, english.ENGLISH, german.GERMAN, french.FRENCH, spanish.SPANISH, portuguese.PORTUGUESE,
    italian.ITALIAN, dutch.DUTCH, russian.RUSSIAN, japanese.JAPANESE, chinese.CHINESE)}


def language(code: str) -> Language:
    """The record of a corpus language; another code (und: undetermined) gets none of a named one's
    choices: the identifiers analyser, English reports and X1 wording, no named extra sentence."""
    return LANGUAGES.get(code) or Language(code=code, name=None)
