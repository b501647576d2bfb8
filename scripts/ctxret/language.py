"""What the corpus language (`corpus.language`, ISO 639) decides: the default extra sentence of
the context prompt, whether contexts are checked for Hangul, the BM25 analyser and, unless
report.language is set, the report language."""
from __future__ import annotations

NAMES = {"ko": "Korean", "en": "English", "ja": "Japanese", "zh": "Chinese", "de": "German",
         "fr": "French", "es": "Spanish", "pt": "Portuguese", "it": "Italian", "ru": "Russian"}


def extra_sentence(language: str) -> str:
    """ko: "Answer in Korean, the language of the document." (the reference's sentence)."""
    name = NAMES.get(language)
    return f"Answer in {name}, the language of the document." if name else "Answer in the language of the document."


def bm25_analyser(language: str) -> str:
    """Kiwi morphemes for Korean, bm25s's stemmed English for English; Unicode words (identifiers
    kept whole) otherwise."""
    return {"ko": "kiwi", "en": "english"}.get(language, "identifiers")


def checks_hangul(language: str) -> bool:
    return language == "ko"


def report_language(language: str) -> str:
    """The reports' language for a corpus language: Korean for Korean, English otherwise (the two
    report languages)."""
    return "ko" if language == "ko" else "en"
