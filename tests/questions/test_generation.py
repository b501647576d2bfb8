"""Generated question sets' pure parts (ctxret.questions.generation): the seeded, stratified
sample, the replies read, each filter with its count, and no kept question whose gold passage is
not in its gold chunk, on the fake claude's replies to the real prompts."""
import importlib.machinery
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from ctxret.errors import InputError
from ctxret.questions.generation import (KINDS, REASONS, auto_questions, fill, longest_quote, near_duplicates,
                                         next_round, overlap, parse_reply, prompts_in, sample_chunks, screen,
                                         user_prompt)

ROOT = Path(__file__).resolve().parents[2]
CAPS = {"overlap_cap": 0.6, "quote_chars": 30}
CHUNK = {"chunk_id": "00007", "slug": "redis-ttl", "title": "Redis TTL",
         "text": "캐시 항목의 만료 시각을 흩뜨리면 동시에 만료되는 키가 줄어든다. 보통 기본 TTL의 10% 안에서 흩뜨린다."}


def fake_claude():
    loader = importlib.machinery.SourceFileLoader("fake_claude", str(ROOT / "tests" / "fakes" / "fake_claude"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("fake_claude", loader))
    loader.exec_module(module)
    return module


def reply(question, passage):
    return json.dumps({"question": question, "passage": passage}, ensure_ascii=False)


def test_the_sample_is_seeded_and_takes_every_document_before_a_second_chunk_of_any():
    chunks = [{"chunk_id": f"{d}{i}", "slug": d, "text": "t"} for d, n in (("a", 5), ("b", 2), ("c", 1)) for i in range(n)]
    sample = sample_chunks(chunks, 10, list(KINDS), seed=0)
    assert len(sample) == 10
    assert {c["slug"] for c, _, _ in sample[:3]} == {"a", "b", "c"}
    assert {c["slug"] for c, _, _ in sample[3:5]} == {"a", "b"}
    assert [k for _, k, _ in sample[:3]] == list(KINDS)
    assert sample == sample_chunks(chunks, 10, list(KINDS), seed=0)
    assert [c["chunk_id"] for c, _, _ in sample] != [c["chunk_id"] for c, _, _ in
                                                     sample_chunks(chunks, 10, list(KINDS), 1)]
    # past the 8 chunks, a chunk comes again with the next kind: no (chunk, kind) twice in a take
    assert len({(c["chunk_id"], k) for c, k, _ in sample}) == 10 and {t for _, _, t in sample} == {1}
    # past the 24 (chunk, kind) pairs, each pair's take 2 in the same order, then take 3; prefix-stable
    longer = sample_chunks(chunks, 50, list(KINDS), seed=0)
    assert longer[:10] == sample and len({(c["chunk_id"], k) for c, k, _ in longer[:24]}) == 24
    assert longer[24:48] == [(c, k, 2) for c, k, _ in longer[:24]]
    assert longer[48:] == [(c, k, 3) for c, k, _ in longer[:2]]


def test_a_later_take_asks_for_another_question_and_the_fake_writes_one():
    fake = fake_claude()
    prompts = prompts_in(yaml.safe_load((ROOT / "config" / "question-prompts.yaml").read_text(encoding="utf-8")), "ko")
    first = user_prompt(prompts, CHUNK, "paraphrased", [])
    assert first == fill(prompts["paraphrased"], CHUNK)   # take 1: the prompt (and its store key) of before
    take1 = parse_reply(fake.question_for(first, "paraphrased"))[0]
    second = user_prompt(prompts, CHUNK, "paraphrased", [take1])
    assert second.startswith(first) and f"<earlier>{take1}</earlier>" in second
    take2 = parse_reply(fake.question_for(second, "paraphrased"))[0]
    third = user_prompt(prompts, CHUNK, "paraphrased", [take1, take2])
    assert f"<earlier>{take1}\n{take2}</earlier>" in third
    assert len({take1, take2, parse_reply(fake.question_for(third, "paraphrased"))[0]}) == 3


def test_a_reply_is_read_as_json_in_a_code_fence_or_not_at_all():
    assert parse_reply('```json\n{"question": "q?", "passage": "p"}\n```') == ("q?", "p")
    assert parse_reply("I cannot help with that.") is None
    assert parse_reply('{"question": "q?"}') is None


def test_each_filter_drops_its_case_and_counts_it():
    passage = "보통 기본 TTL의 10% 안에서 흩뜨린다."
    worded_like_the_chunk = "캐시 항목의 만료 시각 흩뜨리면 키가 줄어든다?"
    candidates = [
        {"kind": "paraphrased", "reply": reply("만료를 분산하는 폭은 어느 정도가 적당한가요?", passage)},   # good
        {"kind": "lexical", "reply": reply(worded_like_the_chunk, passage)},                           # good: lexical
        {"kind": "paraphrased", "reply": "no JSON here"},
        {"kind": "paraphrased", "reply": reply("만료 폭은 얼마인가요?", "보통 기본 TTL의 20% 안에서 흩뜨린다.")},
        {"kind": "paraphrased", "reply": reply("'캐시 항목의 만료 시각을 흩뜨리면 동시에 만료되는 키가 줄어든다'는 무슨 뜻인가요?", passage)},
        {"kind": "context_needing", "reply": reply(worded_like_the_chunk, passage)},
        {"kind": "paraphrased", "reply": reply("How wide should the expiry jitter be?", passage)},
        {"kind": "paraphrased", "reply": reply("만료를 분산하는 폭은 어느 정도가 적당한가요??", passage)},
    ]
    kept, dropped = screen([{**c, "chunk": CHUNK} for c in candidates], "ko", **CAPS)
    questions = [k["question"] for k in kept]
    assert questions == ["만료를 분산하는 폭은 어느 정도가 적당한가요?", worded_like_the_chunk,
                         "만료를 분산하는 폭은 어느 정도가 적당한가요??"]
    assert dict(dropped) == {**{reason: 1 for reason in REASONS[:-1]}, REASONS[-1]: 0}
    assert kept[1]["overlap"] > CAPS["overlap_cap"] >= kept[0]["overlap"]
    # without vectors, the trigram rule; with them, the cosine (the third question's vector near the first's)
    assert near_duplicates(questions, None, 0.95, 0.8) == [False, False, True]
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [0.99, 0.05]])
    assert near_duplicates(questions, vectors, 0.95, 0.8) == [False, False, True]
    assert near_duplicates(questions, vectors, 0.999, 0.8) == [False, False, False]


def test_overlap_and_quotes_are_measured_as_stated():
    assert overlap("만료 시각은?", CHUNK["text"]) == 1.0        # 만료, 시각 (the particle 은 dropped)
    assert overlap("What is Redis?", "Redis keys") == 1.0      # what, is: stop words
    assert overlap("Why jitter?", CHUNK["text"]) == 0.0
    assert longest_quote("'동시에 만료되는 키가' 왜?", CHUNK["text"]) == len("동시에 만료되는 키가")


def test_no_kept_question_has_a_gold_passage_outside_its_gold_chunk():
    fake = fake_claude()
    prompts = yaml.safe_load((ROOT / "config" / "question-prompts.yaml").read_text(encoding="utf-8"))["ko"]
    docs = sorted((ROOT / "data" / "demo" / "articles").glob("*.mdx"))
    chunks = [{"chunk_id": f"{d:02d}{i:03d}", "slug": path.stem, "title": path.stem, "text": para}
              for d, path in enumerate(docs)
              for i, para in enumerate(p for p in path.read_text(encoding="utf-8").split("\n\n") if len(p) > 80)]
    sample = sample_chunks(chunks, 90, list(KINDS), seed=0)
    candidates = [{"chunk": c, "kind": k, "reply": fake.question_for(fill(prompts[k], c), k)} for c, k, _ in sample]
    kept, dropped = screen(candidates, "ko", **CAPS)
    assert kept and all(k["passage"] in k["chunk"]["text"] for k in kept)
    assert dropped["passage not verbatim in the chunk"] > 0
    assert len(kept) + sum(dropped.values()) == 90


def test_the_language_filter_reads_a_short_question_as_the_corpus_language_is_found():
    """Latin script: py3langid, only when confident; Japanese and Chinese: their scripts, an identifier's
    Latin letters aside but not English prose."""
    def kept(language, *questions):
        chunk = {**CHUNK, "text": "x"}
        candidates = [{"kind": "lexical", "chunk": chunk, "reply": reply(q, "x")} for q in questions]
        found, dropped = screen(candidates, language, **CAPS)
        return [k["question"] for k in found], dropped["wrong language"]

    german = ["Wie lange sollte der Ablauf-Jitter eines Cache-Eintrags sein?", "Was empfiehlt der Text zum Caching?"]
    assert kept("de", *german, "How long should the expiry jitter of a cache entry be?") == (german, 1)
    assert kept("en", "How long should the expiry jitter of a cache entry be?", *german) == (
        ["How long should the expiry jitter of a cache entry be?"], 2)
    japanese = ["websocketsをインストールするには？", "有効期限のジッターはどのくらいの幅にすべきですか？"]
    assert kept("ja", *japanese, "如何安装 websockets？", "How do I install websockets?",
                "What does the text recommend about キャッシュ?") == (japanese, 3)
    assert kept("zh", "如何在 FastAPI 中配置 CORSMiddleware？", "websocketsをインストールするには？") == (
        ["如何在 FastAPI 中配置 CORSMiddleware？"], 1)


def test_each_language_is_asked_in_its_own_prompts_or_by_its_english_name_in_englishs():
    prompts = yaml.safe_load((ROOT / "config" / "question-prompts.yaml").read_text(encoding="utf-8"))
    asked = {"ko": "한국어로", "ja": "日本語で", "zh": "用中文", "de": "auf Deutsch", "fr": "en français",
             "es": "en español", "en": "in English,", "nl": "in Dutch,", "pt": "in Portuguese,", "it": "in Italian,",
             "ru": "in Russian,", "und": "in the chunk's language,"}
    for code, words in asked.items():
        assert all(words in prompts_in(prompts, code)[kind] for kind in KINDS), code
        assert "<earlier>{earlier}</earlier>" in prompts_in(prompts, code)["again"], code
    assert prompts_in(prompts, "nl")["system"] == prompts_in(prompts, "en")["system"] == prompts["en"]["system"]


def test_n_auto_without_a_pilot_says_what_to_mend():
    with pytest.raises(InputError) as raised:
        auto_questions(None, "failure@5", 5.0, "questions.sets.Gen.generate.n")
    assert str(raised.value).startswith("questions.sets.Gen.generate.n: auto needs the free pilot")
    assert "(pairs.primary, questions.groups); set n, or mend them and generate again" in str(raised.value)


def rounds(*pairs):
    """The rounds' record from (asked in the round, kept so far) pairs."""
    return [{"asked": a, "kept": k} for a, k in pairs]


def test_rounds_ask_by_the_keep_rate_until_the_target_and_say_why_they_stop():
    # 30 asked, 10 kept: 20 more at that rate reach 10 more; at least one even when the rate is high
    assert next_round(20, rounds((30, 10)), None, 300, 1) == (30, None)
    assert next_round(11, rounds((10, 10)), None, 300, 1) == (1, None)
    # never past the budget's most questions nor the corpus's (chunk, kind) pairs
    assert next_round(20, rounds((30, 10)), 40, 300, 1) == (10, None)
    assert next_round(20, rounds((30, 10)), None, 35, 1) == (5, None)
    assert next_round(20, rounds((30, 10), (30, 20)), 40, 300, 1) == (0, "target reached")
    assert next_round(20, rounds((30, 5), (10, 6)), 40, 300, 1) == (0, "budget")
    assert next_round(20, rounds((30, 5), (10, 6)), None, 40, 1) == (0, "corpus exhausted")
    # rounds that keep nothing new stop them once, at the rate as of the last gain, they should have kept 3
    assert next_round(20, rounds((30, 0)), None, 300, 1) == (0, "a round kept nothing new")
    assert next_round(20, rounds((30, 10), (30, 10)), None, 300, 1) == (0, "a round kept nothing new")
    assert next_round(20, rounds((30, 10), (8, 10)), None, 300, 1) == (38, None)   # 8 at 1/3: 2.7 expected
    assert next_round(20, rounds((30, 10), (8, 10), (2, 10)), None, 300, 1) == (0, "a round kept nothing new")
    assert next_round(20, rounds((6, 1), (12, 1)), None, 300, 1) == (282, None)      # 12 at 1/6: 2 expected
    assert next_round(20, rounds((6, 1), (12, 1), (18, 1)), None, 300, 1) == (0, "a round kept nothing new")
    # with takes, a round ends at the end of a take's cycle, and the next asks the next take
    assert next_round(20, rounds((30, 10)), None, 35, 2) == (5, None)
    assert next_round(20, rounds((30, 10), (5, 12)), None, 35, 2) == (24, None)
    assert next_round(40, rounds((30, 10), (5, 12)), None, 35, 2) == (35, None)
    assert next_round(40, rounds((30, 10), (20, 12)), None, 35, 2) == (20, None)
    assert next_round(20, rounds((30, 5), (10, 10)), None, 40, 2) == (40, None)
    assert next_round(20, rounds((40, 5), (40, 10)), None, 40, 2) == (0, "corpus exhausted")
