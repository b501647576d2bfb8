"""What the corpus language (`corpus.language`, ISO 639) decides: the default extra sentence of
the context prompt, whether contexts are checked for Hangul, the BM25 analyser and, unless
report.language is set, the report language."""
from __future__ import annotations

import re
from typing import Iterable

HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")  # jamo, compatibility jamo, syllables
# Text is Korean when at least this share of its letters is Hangul (measured: the demo's technical
# Korean 0.66, KorQuAD 0.96, the English test corpora 0).
KOREAN_SHARE = 0.3

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


def hangul_share(texts: Iterable[str]) -> float | None:
    """Hangul letters among all letters of `texts` (None without a letter)."""
    letters = hangul = 0
    for text in texts:
        letters += sum(ch.isalpha() for ch in text)
        hangul += len(HANGUL.findall(text))
    return hangul / letters if letters else None


def script_warning(texts: Iterable[str], language: str) -> dict | None:
    """A warning when corpus.language is ko and the text is not Korean, or another language and
    the text is Korean."""
    share = hangul_share(texts)
    if share is None or (share >= KOREAN_SHARE) == (language == "ko"):
        return None
    return {"kind": "language", "language": language, "share": round(share, 3)}
