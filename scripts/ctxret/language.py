"""What the corpus language (`corpus.language`, ISO 639) decides: the default extra sentence of
the context prompt, whether contexts are checked for Hangul, the BM25 analyser and, unless
report.language is set, the report language. `auto` (the default): the language is found from the
kept documents' letters, by script (`letters_by_script`, `found_language`)."""
from __future__ import annotations

import re
from typing import Iterable

AUTO = "auto"
HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")  # jamo, compatibility jamo, syllables
SCRIPTS = {"hangul": HANGUL,
           "kana": re.compile("[\u3041-\u309f\u30a1-\u30ff\u31f0-\u31ff\uff66-\uff9d]"),  # hiragana, katakana
           "han": re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"),
           "cyrillic": re.compile("[\u0400-\u04ff]"),
           "latin": re.compile("[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]")}
# Text is Korean when at least this share of its letters is Hangul (measured: the demo's technical
# Korean 0.66, KorQuAD 0.96, the English test corpora 0): technical text carries many Latin
# identifiers, so a non-Latin script need not be the majority. Han and Cyrillic count the same way.
KOREAN_SHARE = 0.3
OTHER_SCRIPT_SHARE = 0.3
KANA_SHARE = 0.1    # Japanese writes a third or more of its letters in Kana; Chinese none
LATIN_SHARE = 0.5   # otherwise English when most letters are Latin

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


def letters_by_script(texts: Iterable[str], scripts: dict[str, re.Pattern] = SCRIPTS) -> dict[str, int]:
    """How many letters `texts` hold ("letters") and how many of them each script's."""
    counts = dict.fromkeys(["letters", *scripts], 0)
    for text in texts:
        counts["letters"] += sum(ch.isalpha() for ch in text)
        for script, pattern in scripts.items():
            counts[script] += len(pattern.findall(text))
    return counts


def shares(letters: dict[str, int]) -> dict[str, float]:
    """Each script's share of the letters, as `<script>_share` (0 without a letter)."""
    n = letters["letters"]
    return {f"{script}_share": round(letters[script] / n, 3) if n else 0.0 for script in SCRIPTS}


def found_language(letters: dict[str, int]) -> dict:
    """The language of text with these letters (`letters_by_script`), and why: Korean at 30 % Hangul,
    Japanese at 10 % Kana, Chinese at 30 % Han, Russian at 30 % Cyrillic, else English when most
    letters are Latin, else `und` (undetermined: the identifiers analyser, English reports)."""
    n = letters["letters"] or 1
    share = {script: letters[script] / n for script in SCRIPTS}
    language, reason = next(((lang, reason) for lang, ok, reason in (
        ("ko", share["hangul"] >= KOREAN_SHARE, "Hangul script, taken as Korean"),
        ("ja", share["kana"] >= KANA_SHARE, "Kana, taken as Japanese"),
        ("zh", share["han"] >= OTHER_SCRIPT_SHARE, "Han script without Kana, taken as Chinese"),
        ("ru", share["cyrillic"] >= OTHER_SCRIPT_SHARE, "Cyrillic script, taken as Russian"),
        ("en", share["latin"] >= LATIN_SHARE, "Latin script, taken as English")) if ok),
        ("und", "no script holds enough of the letters" if letters["letters"] else "no letters"))
    return {"language": language, "found": AUTO, "reason": reason, **shares(letters)}


def stated_language(language: str, letters: dict[str, int] | None) -> dict:
    """The record of a language stated in corpus.language (the text's shares when measured)."""
    return {"language": language, "found": "stated", **(shares(letters) if letters else {})}


def described(record: dict) -> str:
    """A found or stated language in one line, for the run's first lines."""
    if record["found"] != AUTO:
        return f"corpus.language: {record['language']} (stated)"
    return (f"corpus.language: {record['language']} (auto, found in the kept documents' text: {record['reason']}; "
            f"Hangul {record['hangul_share']:.0%}, Latin {record['latin_share']:.0%} of the letters; "
            f"state corpus.language to choose another)")


def hangul_share(texts: Iterable[str]) -> float | None:
    """Hangul letters among all letters of `texts` (None without a letter)."""
    counts = letters_by_script(texts, {"hangul": HANGUL})
    return counts["hangul"] / counts["letters"] if counts["letters"] else None


def script_warning(texts: Iterable[str], language: str) -> dict | None:
    """A warning when a stated corpus.language is ko and the text is not Korean, or another
    language and the text is Korean (a language found from the same text agrees with it: auto,
    before or after it is found, has none)."""
    if language == AUTO:
        return None
    share = hangul_share(texts)
    if share is None or (share >= KOREAN_SHARE) == (language == "ko"):
        return None
    return {"kind": "language", "language": language, "share": round(share, 3)}
