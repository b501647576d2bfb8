"""Recognition beyond scripts: a Latin-script corpus's language told apart by py3langid in each
document, the run's first line naming it with its share of the documents, a mixed corpus named
mixed with each language's share and its majority's language applied (docs/analysis.md)."""
from workflow import ROOT

from ctxret.config.plan import plan
from ctxret.importers.selection import kept_corpus
from ctxret.languages import described, documents_by_language, found_language, letters_by_script
from conftest import settings

DOCS = {
    "de": ["Die Verbindungen zur Datenbank werden nach drei Versuchen geschlossen und neu geöffnet.",
           "Setzen Sie max_connections auf die Anzahl der Anwendungsinstanzen, geteilt durch die Größe des Pools.",
           "Wiederholen Sie nur idempotente Anfragen, mit exponentieller Wartezeit zwischen den Versuchen."],
    "fr": ["Les connexions à la base de données sont fermées après trois essais puis rouvertes.",
           "Réessayez uniquement les requêtes idempotentes, avec une attente exponentielle entre les essais."],
    "es": ["Las conexiones a la base de datos se cierran después de tres intentos y se vuelven a abrir."],
    "pt": ["As conexões com o banco de dados são fechadas após três tentativas e reabertas depois."],
    "it": ["Le connessioni al database vengono chiuse dopo tre tentativi e poi riaperte di nuovo."],
    "nl": ["De verbindingen met de database worden na drie pogingen gesloten en daarna weer geopend."],
    "en": ["A pool keeps database connections open between requests; size it to max_connections.",
           "Retry only idempotent requests, with exponential backoff and jitter between the attempts."],
}


def found(texts):
    return found_language(letters_by_script(texts), documents_by_language(texts))


def test_each_latin_script_language_is_told_apart_in_its_documents():
    for code, texts in DOCS.items():
        assert documents_by_language(texts) == {code: len(texts)}, code
        record = found(texts)
        assert (record["language"], record["documents"], record["mixed"]) == (code, {code: 1.0}, False), code


def test_the_first_line_names_the_language_and_its_share_of_the_documents():
    assert described(found(DOCS["de"])) == (
        "corpus.language: de (auto, found in the kept documents' text: Latin script, identified as de in most "
        "documents (py3langid); de 100% of the documents; Hangul 0%, Latin 100% of the letters; "
        "state corpus.language to choose another)")
    assert described(found(DOCS["en"])).startswith(
        "corpus.language: en (auto, found in the kept documents' text: Latin script, taken as English; "
        "en 100% of the documents;")


def test_a_mixed_corpus_is_named_mixed_and_takes_its_majoritys_language():
    """3 German and 2 English documents: German (60 % < MIXED_SHARE), named mixed, every document
    analysed as German; a Korean corpus with one English page stays Korean by its letters."""
    record = found(DOCS["de"] + DOCS["en"])
    assert (record["language"], record["documents"], record["mixed"]) == ("de", {"de": 0.6, "en": 0.4}, True)
    assert ("a mixed corpus: de 60%, en 40% of the documents; the majority's language applies to every document"
            in described(record))
    korean = ["카프카 컨슈머의 랙은 가장 새 오프셋과 커밋된 오프셋의 차이다."] * 4 + DOCS["en"][:1]
    record = found(korean)
    assert (record["language"], record["documents"], record["mixed"]) == ("ko", {"ko": 0.8, "en": 0.2}, False)
    assert found(DOCS["de"][:1] + DOCS["en"][:1])["language"] == "en"   # a tie: English


def test_a_german_folder_gets_the_german_analyser_through_the_workflows_reading(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for i, text in enumerate(DOCS["de"]):
        (folder / f"d{i}.md").write_text(f"# Seite {i}\n\n{text}\n", encoding="utf-8")
    config = settings(results=str(tmp_path / "results"), store=str(tmp_path / "store"),
                      corpus={"format": "files", "path": str(folder)})
    kept = kept_corpus(config["corpus"], config["store"])
    assert kept.documents == {"de": 3}
    p = plan(config, ROOT, kept.letters, kept.documents)
    assert (p.config["corpus"]["language"], p.config["bm25"]["analyser"]) == ("de", "german")
    assert p.config["contexts"]["extra_sentence"] == "Answer in German, the language of the document."
    assert p.notes[0].startswith("corpus.language: de (auto, found in the kept documents' text: Latin script, "
                                 "identified as de")


def test_the_reports_corpus_line_names_a_mixed_corpus():
    from ctxret.presentation.pages import corpus_line
    from ctxret.presentation.wording import WORDING
    about = {"path": "docs", "documents": 5, "language": found(DOCS["de"] + DOCS["en"])}
    assert corpus_line(about, WORDING["en"]).endswith(
        "; a mixed corpus: de 60%, en 40% of the documents, the majority's language for every document)")
    assert "여러 언어가 섞인 말뭉치: 문서의 de 60%, en 40%" in corpus_line(about, WORDING["ko"])
    plain = {**about, "language": found(DOCS["de"])}
    assert "mixed" not in corpus_line(plain, WORDING["en"])
