"""The Snowball analysers (German, French, ... Russian): tokens as PyStemmer and bm25s's stopwords
give them when called directly, identifiers whole, the description keyed by library and list."""
import re

import Stemmer
from bm25s.stopwords import STOPWORDS_GERMAN

from ctxret.languages import language
from ctxret.retrieval.bm25 import ANALYSERS, SNOWBALL, make_tokenizer, tokenizer_from

SAMPLES = {"german": "Die Verbindungen zur Datenbank wurden nach drei Versuchen geschlossen.",
           "french": "Les connexions à la base de données ont été fermées après trois essais.",
           "spanish": "Las conexiones a la base de datos se cerraron después de tres intentos.",
           "portuguese": "As conexões com o banco de dados foram fechadas após três tentativas.",
           "italian": "Le connessioni al database sono state chiuse dopo tre tentativi.",
           "dutch": "De verbindingen met de database werden na drie pogingen gesloten.",
           "russian": "Соединения с базой данных были закрыты после трёх попыток."}


def analyser(name):
    return make_tokenizer({"analyser": name, "lowercase": True, "pos": []})


def test_german_tokens_are_pystemmers_stems_of_the_words_bm25s_does_not_stop():
    text = SAMPLES["german"]
    stemmer = Stemmer.Stemmer("german")
    expected = [stemmer.stemWord(w) for w in re.findall(r"\w\w+", text.lower()) if w not in STOPWORDS_GERMAN]
    assert analyser("german").many([text]) == [expected]
    assert "verbind" in expected and "die" not in expected


def test_every_snowball_language_stems_and_drops_its_stopwords():
    for name, text in SAMPLES.items():
        tokens = analyser(name).many([text])[0]
        words = re.findall(r"\w\w+", text.lower())
        assert 0 < len(tokens) < len(words), name          # stopwords dropped
        assert any(t not in words for t in tokens), name    # some words stemmed


def test_identifiers_are_kept_whole():
    text = "Setzen Sie max.poll.interval.ms und max_connections in Version 3.11.2 von kafka-client."
    tokens = analyser("german").many([text])[0]
    assert {"max.poll.interval.ms", "max_connections", "3.11.2", "kafka-client"} <= set(tokens)


def test_a_language_record_picks_its_analyser_and_the_index_description_gives_it_back():
    for code, name in (("de", "german"), ("fr", "french"), ("es", "spanish"), ("pt", "portuguese"),
                       ("it", "italian"), ("nl", "dutch"), ("ru", "russian")):
        assert language(code).analyser == name and ANALYSERS[name] and name in SNOWBALL
        described = analyser(name).describe()
        assert described["kind"] == name and described["stemmer"].startswith("PyStemmer ")
        assert described["stopwords"].startswith("bm25s ")
        again = tokenizer_from(described)
        assert again.describe() == described and again.many([SAMPLES[name]]) == analyser(name).many([SAMPLES[name]])
