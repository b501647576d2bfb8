"""BM25: a part of speech keeps its conjugated stems, identifiers stay whole, stored
token lists follow the rule, term ids are stable, the engine's sparse search equals bm25s, the
English analyser is bm25s's own."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from ctxret.errors import InputError
from ctxret.languages import language
from ctxret.retrieval.bm25 import (EnglishTokenizer, KiwiTokenizer, SimpleTokenizer, build_index, identifier_spans,
                                   make_tokenizer, query_vector, tokenizer_from)
from ctxret.retrieval.qdrant import open_engine
from ctxret.stages.index import build_embedded, fill
from ctxret.stages.search import bm25_scorer, top_k_all
from ctxret.store import JsonPackStore, content_key, namespace_of

POS = ["NNG", "NNP", "NNB", "NR", "NP", "VV", "VA", "XR", "SL", "SH", "SN", "MAG"]
TEXTS = [
    "컨슈머가 max.poll.interval.ms를 넘기면 그룹에서 쫓겨난다.",
    "결제 API에는 Idempotency-Key 헤더를 보내 order-1003의 중복 승인을 막는다.",
    "연결이 끊기면 ERR_CONNECTION_RESET 오류가 난다. 재시도는 지수 백오프로 한다.",
    "레디스의 allkeys-lru 정책은 모든 키에서 오래 안 쓴 키를 지운다.",
    "volatile-lru 정책은 만료 시간이 있는 키에서만 고른다. 레디스 메모리가 가득 차면 쓴다.",
    "카프카 컨슈머 그룹의 리밸런싱은 session.timeout.ms와도 관련된다.",
]


@pytest.fixture(scope="module")
def tokenizer():
    return KiwiTokenizer(POS, lowercase=True)


def test_identifiers_are_one_token_and_particles_still_go(tokenizer):
    (tokens,) = tokenizer.many(["max.poll.interval.ms를 넘기면 Idempotency-Key와 order-1003, ERR_CONNECTION_RESET은"])
    for ident in ("max.poll.interval.ms", "idempotency-key", "order-1003", "err_connection_reset"):
        assert ident in tokens
    assert "를" not in tokens and "max" not in tokens


def test_a_listed_part_of_speech_keeps_its_regular_and_irregular_stems(tokenizer):
    """Kiwi tags 받 (받았다) VV-R and 짓 (지었다) VV-I: `VV` keeps both, as a Korean reader of the list
    expects; a list naming VV-I keeps only the irregular stem."""
    ((tokens, tags),) = tokenizer.analyse(["지원을 받았다. 집을 지었다. 새로 만들었다."])
    assert {"받", "짓", "만들"} <= set(tokens)
    assert {"VV-R", "VV-I", "VV"} <= set(tags)
    assert KiwiTokenizer(["VV-I"], lowercase=True).many(["지원을 받았다. 집을 지었다. 새로 만들었다."]) == [["짓"]]


@pytest.mark.parametrize("text, whole", [
    ("max_connections를 늘리고 kafka.consumer.group을 본다", ["max_connections", "kafka.consumer.group"]),
    ("렌즈는 f/1.7이고 링크는 en:monika, 버전은 v1.2.3", ["f/1.7", "en:monika", "v1.2.3"]),
    ("2007.3.16에 나온 16:9 화면의 2-1 경기, 3.11.2 버전", ["2007.3.16", "16:9", "2-1", "3.11.2"]),
    ("max connections, a..b", []),
])
def test_an_identifier_is_letters_and_digits_joined_by_single_separators(text, whole, tokenizer):
    """The README's identifier rule, numbers included: Kiwi would tag `2007.3.16` W_SERIAL, which
    bm25.pos does not list, so a version or a date would leave the index."""
    assert [text[a:b] for a, b in identifier_spans(text)] == whole
    for tokens in (tokenizer.many([text])[0], SimpleTokenizer(lowercase=True).many([text])[0]):
        assert set(whole) <= set(tokens)


def test_an_index_built_under_another_rule_is_refused_at_search():
    described = KiwiTokenizer(POS, lowercase=True).describe()
    assert tokenizer_from(described).describe() == described
    with pytest.raises(InputError, match="built under another analysis rule"):
        tokenizer_from({k: v for k, v in described.items() if k != "rule"})


def test_token_lists_stored_under_another_rule_are_analysed_again(tokenizer, tmp_path):
    """The rule is part of the store's key: a list stored before it (description without it) is not read."""
    text = "지원을 받았다"
    before = {k: v for k, v in tokenizer.describe().items() if k != "rule"}
    JsonPackStore(tmp_path, "tokens", namespace_of(before)).save({content_key(tokenizer=before, text=text): ["지원"]})
    (tokens,), analysed, tags = tokenizer.cached_many([text], str(tmp_path))
    assert (tokens, analysed, tags) == (["지원", "받"], 1, {"NNG": 1, "VV-R": 1})
    assert tokenizer.cached_many([text], str(tmp_path)) == ([tokens], 0, tags)


def test_lowercase_is_configurable():
    assert "Idempotency-Key" in KiwiTokenizer(POS, lowercase=False).many(["Idempotency-Key 헤더"])[0]


def test_the_simple_tokenizer_keeps_identifiers_whole_and_words_clean():
    """What corpora in other languages and code get (Kiwi cuts `header.` into `h`, `eader.`)."""
    (tokens,) = SimpleTokenizer(lowercase=True).many(["Send an Idempotency-Key header. Use os.path.join, not +."])
    assert tokens == ["send", "an", "idempotency-key", "header", "use", "os.path.join", "not"]
    assert SimpleTokenizer(lowercase=False).many(["Path.read_text"]) == [["Path.read_text"]]


BUILD = """
import json, sys
from ctxret.retrieval.bm25 import KiwiTokenizer, build_index
texts = json.loads(sys.argv[1])
_, vocab, _ = build_index(KiwiTokenizer(json.loads(sys.argv[2]), True).many(texts), 1.5, 0.75)
print(json.dumps(vocab))
"""


def test_term_ids_do_not_depend_on_the_process():
    vocabs = []
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", BUILD, json.dumps(TEXTS), json.dumps(POS)],
                             capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": seed})
        vocabs.append(json.loads(out.stdout))
    assert vocabs[0] == vocabs[1]


def top_k(matrix, ids: list[int], counts: list[float], chunk_ids: list[str], k: int) -> list[tuple[str, float]]:
    """The float64 reference: every chunk sharing a term scored at once, ties by chunk id."""
    scores = np.asarray(matrix[:, ids] @ np.asarray(counts, dtype=np.float64)).ravel()
    order = sorted(np.flatnonzero(scores > 0), key=lambda i: (-scores[i], chunk_ids[i]))[:k]
    return [(chunk_ids[i], float(scores[i])) for i in order]

def test_the_engines_sparse_search_equals_bm25s_and_its_rescored_top_k_is_exact(tokenizer, tmp_path):
    retriever, vocab, matrix = build_index(tokenizer.many(TEXTS), 1.5, 0.75)
    chunk_ids = [f"{i:05d}" for i in range(len(TEXTS))]
    rows = [{"chunk_id": c, "slug": "d"} for c in chunk_ids]
    path = str(tmp_path / "qdrant" / "v")
    build_embedded(path, "fp", lambda engine: fill(engine, rows, {"e5": np.eye(len(TEXTS), 4, dtype=np.float32)},
                                                   matrix, None))
    queries = ("레디스 키 정책 lru", "컨슈머 그룹 리밸런싱 max.poll.interval.ms", "재시도 오류 연결")
    vectors = [query_vector(tokens, vocab) for tokens in tokenizer.many(list(queries))]
    with open_engine(path=path) as engine:
        hits = engine.search("bm25", vectors, len(TEXTS), exact=True)
        ranked = top_k_all(engine, "bm25", vectors, 3, rescore=bm25_scorer(matrix, chunk_ids))
    for tokens, (ids, counts), found, top in zip(tokenizer.many(list(queries)), vectors, hits, ranked):
        got = np.zeros(len(TEXTS))
        for c, score in found:
            got[int(c)] = score
        np.testing.assert_allclose(got, retriever.get_scores(tokens), rtol=1e-5, atol=1e-6)  # float32 in the engine
        assert top == top_k(matrix.tocsc(), ids, counts, chunk_ids, 3)                       # float64, bit for bit


def test_a_query_of_unknown_terms_is_empty(tokenizer):
    _, vocab, _ = build_index(tokenizer.many(TEXTS), 1.5, 0.75)
    assert query_vector(tokenizer.many(["전혀 관계없는 고양이 사료"])[0], vocab) == ([], [])


ENGLISH = ["The IL-10 cytokine's p65/RelA signalling was running; runners ran quickly.",
           "Interleukin 10 (IL-10) suppresses NF-kB signalling in mice.",
           "A study of running and of runners' knees.",
           "Cytokines signal through receptors."]


def test_the_english_analyser_tokenizes_and_scores_as_bm25s_does():
    import bm25s
    import Stemmer
    ours = EnglishTokenizer().many(ENGLISH)
    theirs = bm25s.tokenize(ENGLISH, stopwords="en", stemmer=Stemmer.Stemmer("english"), return_ids=False,
                            show_progress=False)
    assert ours == theirs
    assert ours[0][:5] == ["il", "10", "cytokin", "p65", "rela"]     # identifiers split, stems
    # scores: bm25s indexing its own tokens vs the project's index of the analyser's tokens
    reference = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    reference.index(bm25s.tokenize(ENGLISH, stopwords="en", stemmer=Stemmer.Stemmer("english"),
                                   show_progress=False), show_progress=False)
    _, vocab, matrix = build_index(ours, 1.5, 0.75)
    query = "IL-10 signalling in runners"
    ids, counts = query_vector(EnglishTokenizer().many([query])[0], vocab)
    got = np.asarray(matrix[:, ids] @ np.asarray(counts)).ravel()
    q = bm25s.tokenize([query], stopwords="en", stemmer=Stemmer.Stemmer("english"), return_ids=False,
                       show_progress=False)[0]
    np.testing.assert_allclose(got, reference.get_scores(q), rtol=1e-6)


def test_the_analyser_follows_the_corpus_language_unless_set():
    assert [language(code).analyser for code in ("ko", "en", "de", "sv")] == ["kiwi", "english", "german", "identifiers"]
    assert isinstance(make_tokenizer({"analyser": "english", "lowercase": True, "pos": []}), EnglishTokenizer)
    assert isinstance(make_tokenizer({"analyser": "identifiers", "lowercase": True, "pos": []}), SimpleTokenizer)
