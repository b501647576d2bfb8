"""chunks: paragraphs packed up to max_chars inside `## ` sections; T0/T1 texts of a chunk."""
import hashlib
import re
from types import SimpleNamespace

import pytest
from conftest import read_lines, settings, write_lines

from ctxret.chunkers.corpus import chunk_corpus
from ctxret.chunkers.paragraph import chunk_document
from ctxret.stages import chunks, variant
from ctxret.text.chunk_text import blocks, t0_text, t1_text

T1 = settings()["chunking"]["t1_template"]

INTRO = "컨슈머 지연은 브로커에 쌓인 메시지와 컨슈머가 처리한 위치의 차이다. 지연이 커지면 주문 처리도 늦어진다."
POLL_1 = "`max.poll.interval.ms`를 넘기도록 처리가 길어지면 컨슈머는 그룹에서 쫓겨나고 리밸런싱이 일어난다."
POLL_2 = "`max.poll.records`의 기본값은 500이다. 처리 시간이 긴 작업이라면 이 값을 50 정도로 낮춘다."
BEAT = "`session.timeout.ms` 안에 하트비트가 오지 않으면 브로커는 컨슈머가 죽었다고 판단한다."
KAFKA = f"{INTRO}\n\n## 폴링 간격\n\n{POLL_1}\n\n{POLL_2}\n\n## 하트비트\n\n{BEAT}"
REDIS = ("캐시 만료 시간을 모두 같게 두면 한꺼번에 만료되어 데이터베이스로 요청이 몰린다.\n\n"
         "## 만료 시간 흩뜨리기\n\n만료 시간에 무작위 지터를 더하면 키들이 서로 다른 시각에 만료된다.")
DOCS = [{"slug": "kafka-lag", "title": "카프카 컨슈머 지연 줄이기", "body": KAFKA},
        {"slug": "redis-ttl", "title": "레디스 캐시 만료 설계", "body": REDIS}]


def texts(body, max_chars):
    return [body[c["start"]:c["end"]] for c in chunk_document(body, max_chars)]


def heading_lines(text):
    return [line for line in text.split("\n") if line.startswith("## ")]


def run_chunks(tmp_path, docs, max_chars, name="chunks.jsonl"):
    docs_path = write_lines(tmp_path / "docs.jsonl", docs)
    out = tmp_path / name
    chunks.chunks(input=SimpleNamespace(docs=str(docs_path)), output=SimpleNamespace(chunks=str(out)),
               params=SimpleNamespace(settings={"max_chars": max_chars}, chunker="paragraph", t1_template=T1,
                                      format="manifests"))
    return out


@pytest.mark.parametrize("max_chars", [60, 120, 250, 1000])
def test_every_chunk_is_its_exact_span_within_the_limit_and_one_section(max_chars):
    for doc in DOCS:
        found = chunk_document(doc["body"], max_chars)
        assert found
        for c in found:
            text = doc["body"][c["start"]:c["end"]]
            assert 0 < len(text) <= max_chars
            # never across a section: a heading line can only be the chunk's first line
            assert heading_lines(text) in ([], [text.split("\n")[0]])
            before = doc["body"][:c["end"]]
            titles = re.findall(r"^## (.+)$", before, flags=re.M)
            assert c["section"] == (titles[-1] if titles else "")
        # nothing lost: outside the chunks only whitespace remains
        rest = list(doc["body"])
        for c in found:
            rest[c["start"]:c["end"]] = " " * (c["end"] - c["start"])
        assert "".join(rest).strip() == ""


def test_paragraphs_are_packed_up_to_the_limit():
    p1, p2, p3 = "첫째 문단이다.", "둘째 문단이다.", "셋째 문단이다."
    body = f"{p1}\n\n{p2}\n\n{p3}"
    limit = len(f"{p1}\n\n{p2}")
    assert texts(body, limit) == [f"{p1}\n\n{p2}", p3]
    assert texts(body, limit - 1) == [p1, p2, p3]
    assert texts(body, len(body)) == [body]


def test_a_section_heading_always_starts_a_new_chunk():
    body = "머리말이다.\n\n## 가\n\n짧은 글.\n\n## 나\n\n또 짧은 글."
    found = chunk_document(body, 10_000)
    assert [body[c["start"]:c["end"]] for c in found] == ["머리말이다.", "## 가\n\n짧은 글.", "## 나\n\n또 짧은 글."]
    assert [c["section"] for c in found] == ["", "가", "나"]


def test_a_paragraph_over_the_limit_is_split_at_sentence_ends():
    sentences = ["첫째 문장은 여기서 끝난다.", "둘째 문장도 마찬가지로 끝난다!", "셋째 문장은 물음으로 끝나나?",
                 "넷째 문장이다.", "다섯째 문장으로 문단을 마친다."]
    para = " ".join(sentences)
    body = f"## 절\n\n{para}"
    limit = 40
    assert len(para) > limit and all(len(s) < limit for s in sentences)
    found = chunk_document(body, limit)
    pieces = [c for c in found if c["start"] >= body.index(para)]
    assert len(pieces) > 1
    assert [c["section"] for c in found] == ["절"] * len(found)
    texts_ = [body[c["start"]:c["end"]] for c in pieces]
    assert all(len(t) <= limit for t in texts_)
    assert all(t.endswith((".", "!", "?")) for t in texts_)  # cut at sentence ends
    # consecutive slices of the paragraph, only the separating space between them
    assert pieces[0]["start"] == body.index(para) and pieces[-1]["end"] == len(body)
    for a, b in zip(pieces, pieces[1:]):
        assert a["end"] < b["start"] and body[a["end"]:b["start"]].strip() == ""
    assert " ".join(texts_) == para


def test_a_sentence_longer_than_the_limit_is_hard_cut():
    long = "가나다라마바사아자차카타파하" * 3  # no sentence end at all
    body = f"짧다. {long}"
    limit = 10
    found = texts(body, limit)
    assert found[0] == "짧다."
    assert all(0 < len(t) <= limit for t in found)
    assert "".join(found[1:]) == long
    assert [len(t) for t in found[1:]] == [limit] * (len(long) // limit) + [len(long) % limit]


FENCE = "```yaml\n# 소비자 설정\n\nconsumer:\n## 이건 제목이 아니다\n  max.poll.records: 50\n```"
FENCED = f"## 설정 예시\n\n다음과 같이 설정한다.\n\n{FENCE}\n\n설정을 바꾼 뒤에는 재시작한다."


def test_a_fenced_block_with_blank_lines_and_a_heading_line_is_one_paragraph():
    assert [b.heading for b in blocks(FENCED) if b.heading is not None] == ["설정 예시"]
    found = chunk_document(FENCED, len(FENCE))
    assert [FENCED[c["start"]:c["end"]] for c in found] == [
        "## 설정 예시\n\n다음과 같이 설정한다.", FENCE, "설정을 바꾼 뒤에는 재시작한다."]
    assert {c["section"] for c in found} == {"설정 예시"}
    whole = chunk_document(FENCED, 10_000)
    assert len(whole) == 1 and whole[0]["section"] == "설정 예시"


def test_corpus_ids_keys_and_spans():
    found = chunk_corpus(DOCS, {"max_chars": 120}, "paragraph")
    assert [c["chunk_id"] for c in found] == [f"{i:05d}" for i in range(len(found))]
    assert found[0]["chunk_id"] == "00000"
    bodies = {d["slug"]: d["body"] for d in DOCS}
    titles = {d["slug"]: d["title"] for d in DOCS}
    assert [c["slug"] for c in found] == sorted(c["slug"] for c in found)  # documents in order
    for c in found:
        assert c["text"] == bodies[c["slug"]][c["start"]:c["end"]]
        assert c["title"] == titles[c["slug"]]
        assert c["key"] == hashlib.sha256((c["slug"] + "\n" + c["text"]).encode("utf-8")).hexdigest()
    # the same text in two documents gets two keys
    twins = chunk_corpus([{"slug": "a", "title": "가", "body": "같은 글."},
                          {"slug": "b", "title": "가", "body": "같은 글."}], {"max_chars": 100}, "paragraph")
    assert twins[0]["text"] == twins[1]["text"] and twins[0]["key"] != twins[1]["key"]


def test_the_stage_writes_the_same_chunks_on_every_run(tmp_path, capsys):
    first = run_chunks(tmp_path, DOCS, 120, "first.jsonl")
    second = run_chunks(tmp_path, DOCS, 120, "second.jsonl")
    assert first.read_bytes() == second.read_bytes()
    rows = read_lines(first)
    assert rows == chunk_corpus(DOCS, {"max_chars": 120}, "paragraph")
    bodies = {d["slug"]: d["body"] for d in DOCS}
    assert all(r["text"] == bodies[r["slug"]][r["start"]:r["end"]] for r in rows)
    assert f"documents 2, chunks {len(rows)}" in capsys.readouterr().out


def test_t1_is_title_section_body_and_t0_drops_the_heading_line(tmp_path):
    path = run_chunks(tmp_path, DOCS[:1], 1000)
    rows = read_lines(path)
    assert [r["text"] for r in rows] == [INTRO, f"## 폴링 간격\n\n{POLL_1}\n\n{POLL_2}", f"## 하트비트\n\n{BEAT}"]
    for name in ("T0", "T1"):
        variant.variant(input=SimpleNamespace(chunks=str(path)),
                    output=SimpleNamespace(variant=str(tmp_path / f"var-{name}.jsonl")),
                    params=SimpleNamespace(variant=name, base=name, t1_template=T1))
    t1 = [r["text"] for r in read_lines(tmp_path / "var-T1.jsonl")]
    t0 = [r["text"] for r in read_lines(tmp_path / "var-T0.jsonl")]
    assert t1 == [f"카프카 컨슈머 지연 줄이기\n\n{INTRO}",            # no section: no section line
                  f"카프카 컨슈머 지연 줄이기\n폴링 간격\n\n## 폴링 간격\n\n{POLL_1}\n\n{POLL_2}",
                  f"카프카 컨슈머 지연 줄이기\n하트비트\n\n## 하트비트\n\n{BEAT}"]
    assert t0 == [INTRO, f"{POLL_1}\n\n{POLL_2}", BEAT]
    assert [r["chunk_id"] for r in read_lines(tmp_path / "var-T0.jsonl")] == [r["chunk_id"] for r in rows]


def test_t1_leaves_out_missing_parts_without_extra_blank_lines_and_follows_its_template():
    chunk = {"title": "", "section": "", "text": "본문 {x}\n\n\n둘째"}
    assert t1_text(chunk, T1) == "본문 {x}\n\n\n둘째"                     # the body as it is
    assert t1_text({**chunk, "section": "절"}, T1) == "절\n\n본문 {x}\n\n\n둘째"
    assert t1_text({**chunk, "title": "제목"}, "문서: {title} / {section}\n\n{body}") == \
        "문서: 제목 / \n\n본문 {x}\n\n\n둘째"                              # a line with one field filled stays


def test_a_chunk_that_is_only_a_heading_has_an_empty_t0(tmp_path, capsys):
    long_para = "이 문단은 제목과 함께 들어가기에는 길다. " * 3
    body = f"머리말.\n\n## 긴 절\n\n{long_para.strip()}"
    limit = len(long_para.strip())
    path = run_chunks(tmp_path, [{"slug": "d", "title": "문서", "body": body}], limit)
    rows = read_lines(path)
    assert [r["text"] for r in rows] == ["머리말.", "## 긴 절", long_para.strip()]
    assert [t0_text(r) for r in rows] == ["머리말.", "", long_para.strip()]
    assert t1_text(rows[1], T1) == "문서\n긴 절\n\n## 긴 절"
    assert "chunks whose T0 is empty (body only a heading line) 1" in capsys.readouterr().out


def test_the_chunks_log_names_chunks_with_the_same_text(tmp_path, capsys):
    docs = [{"slug": "a", "title": "가", "body": "같은 문단.\n\n다른 문단."},
            {"slug": "b", "title": "나", "body": "같은 문단.\n\n또 다른 문단."}]
    rows = read_lines(run_chunks(tmp_path, docs, 10))
    assert [r["text"] for r in rows] == ["같은 문단.", "다른 문단.", "같은 문단.", "또 다른 문단."]
    assert "chunks with the same text as another chunk 2 in 1 groups: 00000 = 00002" in capsys.readouterr().out


# ---- package bugs --------------------------------------------------------------------------

S10 = "가나다라마바사아자."  # exactly 10 characters
CASES = {
    # a sentence exactly at the limit, then a sentence over it: an empty chunk appears
    "exact-then-long": (f"{S10} 차카타파하거너더러머버서.", [S10, "차카타파하거너더러머", "버서."]),
    # a sentence exactly at the limit, then a short one: the next chunk starts with a space
    "exact-then-short": (f"{S10} 차카타파하.", [S10, "차카타파하."]),
    # two sentences that exactly fill the limit are not packed together
    "pair-fills-limit": ("가나다라. 마바사. 차카타파하거너더.", ["가나다라. 마바사.", "차카타파하거너더."]),
}


@pytest.mark.parametrize("para, expected", CASES.values(), ids=CASES.keys())
def test_sentence_pieces_do_not_count_the_space_after_a_sentence(para, expected):
    # the space after a sentence is not part of it: exact fits pack, no empty or padded chunk
    limit = 10
    assert len(S10) == limit and len(para) > limit
    found = texts(para, limit)
    assert all(t and t == t.strip() for t in found), found
    assert found == expected


def test_only_a_heading_at_column_zero_starts_a_section():
    # T0 drops a heading only at column 0, so chunks take sections from those lines alone
    body = "머리말.\n\n  ## 들여쓴 줄\n\n## 절\n\n본문이다."
    found = chunk_corpus([{"slug": "d", "title": "문서", "body": body}], {"max_chars": 1000}, "paragraph")
    assert [c["section"] for c in found] == ["", "절"]
    assert "  ## 들여쓴 줄" in found[0]["text"]
    assert t0_text(found[1]) == "본문이다."
