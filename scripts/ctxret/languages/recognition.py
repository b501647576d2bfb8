"""How the corpus language is found when `corpus.language` is `auto` (the default): from the
kept documents' letters, by script (`letters_by_script`, `found_language`), a Latin-script
language told apart by py3langid in each document (`documents_by_language`); and the warning when
a stated language and the text's script disagree."""
from __future__ import annotations

import functools
import re
from collections import Counter
from typing import Iterable

AUTO = "auto"
HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")  # jamo, compatibility jamo, syllables
SCRIPTS = {"hangul": HANGUL,
           "kana": re.compile("[\u3041-\u309f\u30a1-\u30ff\u31f0-\u31ff\uff66-\uff9d]"),  # hiragana, katakana
           "han": re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"),
           "cyrillic": re.compile("[\u0400-\u04ff]"),
           "latin": re.compile("[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]")}
LATIN_WORD = re.compile(f"(?:{SCRIPTS['latin'].pattern})+")
# Text is Korean when at least this share of its letters is Hangul (measured: the demo's technical
# Korean 0.66, KorQuAD 0.96, the English test corpora 0): technical text carries many Latin
# identifiers, so a non-Latin script need not be the majority. Han and Cyrillic count the same way.
KOREAN_SHARE = 0.3
OTHER_SCRIPT_SHARE = 0.3
KANA_SHARE = 0.1    # Japanese writes a third or more of its letters in Kana; Chinese none
LATIN_SHARE = 0.5   # otherwise English when most letters are Latin
# The Latin-script languages with a record, told apart in each document by py3langid (its model
# ships in its wheel); a corpus whose language holds fewer of its documents than MIXED_SHARE is
# named mixed, and its majority's language (analyser, wording, report) applies to every document.
LATIN_LANGUAGES = ("en", "de", "fr", "es", "pt", "it", "nl")
MIXED_SHARE = 0.8
BY_SCRIPT = ("ja", "zh", "ru")   # found by a script other than Latin and Hangul (short_text_in)
# A short text (a generated question) is taken as another Latin-script language than its corpus's,
# or a Japanese, Chinese or Russian one as holding Latin-script prose, only when py3langid gives
# that language at least this probability. Measured on 200 FastAPI headings of four words or more
# per language (en de fr es pt): 1 in 1,000 given another language at 0.8 or more (a Spanish
# heading of English words), 58-92 % given their own (what a question in another language is
# caught at); 56 hand-written questions in en de fr es pt it nl all found right, 54 at 0.8 or
# more; every English heading caught over ja, zh and ru; identifiers ("FastAPI CORSMiddleware",
# "max_connections") 0.2-0.79, English prose ("What does the text recommend about") 0.99.
CONFIDENT = 0.8


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


def found_language(letters: dict[str, int], documents: dict[str, int] | None = None) -> dict:
    """The language of text with these letters (`letters_by_script`), and why: Korean at 30 % Hangul,
    Japanese at 10 % Kana, Chinese at 30 % Han, Russian at 30 % Cyrillic, else, when most letters
    are Latin, the Latin-script language most `documents` (`documents_by_language`) are in (English
    without them or on a tie), else `und` (undetermined: the identifiers analyser, English reports).
    With `documents`, each language's share of them, and whether the corpus is mixed."""
    n = letters["letters"] or 1
    share = {script: letters[script] / n for script in SCRIPTS}
    language, reason = next(((lang, reason) for lang, ok, reason in (
        ("ko", share["hangul"] >= KOREAN_SHARE, "Hangul script, taken as Korean"),
        ("ja", share["kana"] >= KANA_SHARE, "Kana, taken as Japanese"),
        ("zh", share["han"] >= OTHER_SCRIPT_SHARE, "Han script without Kana, taken as Chinese"),
        ("ru", share["cyrillic"] >= OTHER_SCRIPT_SHARE, "Cyrillic script, taken as Russian"),
        ("en", share["latin"] >= LATIN_SHARE, "Latin script, taken as English")) if ok),
        ("und", "no script holds enough of the letters" if letters["letters"] else "no letters"))
    latin = {code: k for code, k in (documents or {}).items() if code in LATIN_LANGUAGES}
    majority = max(sorted(latin), key=lambda code: (latin[code], code == "en")) if latin else "en"
    if language == "en" and majority != "en":
        language, reason = majority, f"Latin script, identified as {majority} in most documents (py3langid)"
    record = {"language": language, "found": AUTO, "reason": reason, **shares(letters)}
    if documents:
        total = sum(documents.values())
        record["documents"] = {code: round(k / total, 3) for code, k in sorted(documents.items(), key=lambda i: -i[1])}
        record["mixed"] = documents.get(language, 0) / total < MIXED_SHARE
    return record


@functools.cache
def identifier():
    """py3langid's identifier, told the Latin-script languages with a record."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier
    found = LanguageIdentifier.from_modelpath(MODEL_DIR / MODEL_FILE, norm_probs=True)
    found.set_languages(list(LATIN_LANGUAGES))
    return found


def document_language(text: str) -> str:
    """One document's language: by its script as a corpus's (`found_language`); a Latin-script
    one by py3langid among `LATIN_LANGUAGES`."""
    code = found_language(letters_by_script([text]))["language"]
    return identifier().classify(text)[0] if code == "en" else code


def short_text_in(text: str, language: str) -> bool:
    """Whether a short text (a generated question) may be in `language`. Korean: Hangul at 30 % of
    its letters, as a corpus. Japanese, Chinese, Russian: its letters other than Latin ones found as
    a corpus's, and its Latin words (a question's identifiers: `CORSMiddleware`) not confidently
    (`CONFIDENT`) prose of a Latin-script language by py3langid. A Latin-script language: Latin
    script, and not confidently another Latin-script language. Any text for a language
    recognition cannot tell (und, a stated code without a record)."""
    letters = letters_by_script([text])
    if language in BY_SCRIPT:
        found = found_language({**letters, "letters": letters["letters"] - letters["latin"], "latin": 0})
        latin = " ".join(LATIN_WORD.findall(text))
        return found["language"] == language and not (latin and identifier().classify(latin)[1] >= CONFIDENT)
    if language in LATIN_LANGUAGES:
        if found_language(letters)["language"] != "en":
            return False
        found, probability = identifier().classify(text)
        return found == language or probability < CONFIDENT
    return language != "ko" or found_language(letters)["language"] == "ko"


def documents_by_language(texts: Iterable[str]) -> dict[str, int]:
    """How many of `texts` are in each language (`document_language`)."""
    return dict(Counter(document_language(t) for t in texts))


def stated_language(language: str, letters: dict[str, int] | None) -> dict:
    """The record of a language stated in corpus.language (the text's shares when measured)."""
    return {"language": language, "found": "stated", **(shares(letters) if letters else {})}


def described(record: dict) -> str:
    """A found or stated language in one line, for the run's first lines."""
    if record["found"] != AUTO:
        return f"corpus.language: {record['language']} (stated)"
    documents = ", ".join(f"{code} {share:.0%}" for code, share in record.get("documents", {}).items())
    mixed = (f"a mixed corpus: {documents} of the documents; the majority's language applies to every document"
             if record.get("mixed") else documents and f"{documents} of the documents")
    return (f"corpus.language: {record['language']} (auto, found in the kept documents' text: {record['reason']}; "
            f"{mixed + '; ' if mixed else ''}"
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
