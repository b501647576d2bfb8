"""The Japanese and Chinese analysers: tokens as SudachiPy and rjieba give them when called
directly, identifiers whole, token lists stored under the analyser's own key."""
import rjieba
from sudachipy import Dictionary

from ctxret.languages import language
from ctxret.retrieval.bm25 import JAPANESE_POS, make_tokenizer, tokenizer_from

JAPANESE = "データベースへの接続は三回の試行後に閉じられました。"
CHINESE = "数据库连接在三次尝试后被关闭。"
IDENTIFIERS = ("max.poll.interval.ms", "max_connections", "3.11.2", "kafka-client")


def analyser(name):
    return make_tokenizer({"analyser": name, "lowercase": True, "pos": []}, 1)


def test_japanese_tokens_are_sudachis_content_morphemes_normalised():
    sudachi = Dictionary(dict="core").tokenizer(mode="A")
    expected = [m.normalized_form().lower() for m in sudachi.tokenize(JAPANESE) if m.part_of_speech()[0] in JAPANESE_POS]
    assert analyser("japanese").many([JAPANESE]) == [expected]
    assert expected == ["データベース", "接続", "3", "回", "試行", "閉じる"]   # particles and auxiliaries gone


def test_chinese_tokens_are_jiebas_words_of_letters_or_digits():
    expected = [w for w in rjieba.cut(CHINESE, True) if w.isalnum()]
    assert analyser("chinese").many([CHINESE]) == [expected]
    assert "数据库" in expected and "在" in expected and "。" not in expected


def test_identifiers_are_kept_whole_in_japanese_and_chinese():
    for name, text in (("japanese", "max.poll.interval.msとmax_connectionsをバージョン3.11.2のkafka-clientで設定する。"),
                       ("chinese", "在kafka-client版本3.11.2中设置max.poll.interval.ms和max_connections参数。")):
        assert set(IDENTIFIERS) <= set(analyser(name).many([text])[0]), name


def test_a_language_record_picks_its_analyser_and_the_index_description_gives_it_back():
    for code, name, text in (("ja", "japanese", JAPANESE), ("zh", "chinese", CHINESE)):
        assert language(code).analyser == name
        described = analyser(name).describe()
        again = tokenizer_from(described)
        assert again.describe() == described and again.many([text]) == analyser(name).many([text])


def test_japanese_token_lists_are_stored_under_the_analysers_key(tmp_path):
    ja = analyser("japanese")
    (tokens,), analysed, tags = ja.cached_many([JAPANESE], str(tmp_path))
    assert (analysed, tags) == (1, {"名詞": 5, "動詞": 1})
    assert ja.cached_many([JAPANESE], str(tmp_path)) == ([tokens], 0, tags)   # from the store
    kiwi = make_tokenizer({"analyser": "kiwi", "lowercase": True, "pos": ["NNG"]}, 1)
    assert kiwi.cached_many([JAPANESE], str(tmp_path))[1] == 1                 # another analyser: analysed anew
