"""The language registry: every record's choices exist where they are used (its BM25 analyser, its
report language's words, X1's wording for every pattern), and what a code decides."""
from ctxret.languages import LANGUAGES, language
from ctxret.presentation.wording import WORDING
from ctxret.retrieval.bm25 import ANALYSERS


def test_every_language_names_an_analyser_and_a_report_language_that_exist():
    english = LANGUAGES["en"].x1
    for code, record in LANGUAGES.items():
        assert record.code == code and record.analyser in ANALYSERS and record.report in WORDING, code
        assert record.x1 is None or set(record.x1) == set(english), code
        assert set(record.names) <= set(WORDING), code


def test_what_a_language_decides():
    ko, en, de, nl = language("ko"), language("en"), language("de"), language("sv")
    assert (ko.analyser, ko.report, ko.checked_script) == ("kiwi", "ko", "hangul")
    assert ko.extra_sentence() == "Answer in Korean, the language of the document."
    assert (en.analyser, en.report, en.checked_script) == ("english", "en", None)
    assert (de.analyser, de.report, de.extra_sentence()) == ("german", "en",
                                                             "Answer in German, the language of the document.")
    assert (nl.analyser, nl.report, nl.names) == ("identifiers", "en", {})     # a code no record holds
    assert nl.extra_sentence() == "Answer in the language of the document."


def test_japanese_and_chinese_decide_their_analyser_x1_prompt_sentence_and_script():
    from ctxret.contexts.llm.heuristic import context_forms
    doc = {"title": "接続", "body": "# 接続\n\n最初の文。次の文。\n", "slug": "d"}
    chunk = {"section": "接続", "start": 6, "end": 16}
    for code, analyser, script, head in (("ja", "japanese", "kana", "この部分は「接続」の「接続」の節に属する。"),
                                         ("zh", "chinese", "han", "这一部分属于《接続》的“接続”一节。")):
        record = language(code)
        assert (record.analyser, record.checked_script, record.report) == (analyser, script, "en")
        assert record.extra_sentence() == f"Answer in {record.name}, the language of the document."
        assert head in context_forms(doc, chunk, code)
