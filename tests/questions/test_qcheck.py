"""questions + qcheck: each question's gold chunk, problems by file:line, the gap-set check."""
import hashlib
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import question_sets, read_lines, settings, write_lines

from ctxret.errors import InputError
from ctxret.questions.sets import load_question_sets
from ctxret.stages import chunks, qcheck, questions

INTRO = "컨슈머 지연은 브로커에 쌓인 메시지와 컨슈머가 처리한 위치의 차이다."
POLL = ("`max.poll.interval.ms`를 넘기면 컨슈머는 그룹에서 쫓겨나고 리밸런싱이 일어난다. "
        "설정을 바꾼 뒤에는 컨슈머를 재시작한다.")
BEAT = ("하트비트가 `session.timeout.ms` 안에 오지 않으면 브로커는 컨슈머가 죽었다고 판단한다. "
        "설정을 바꾼 뒤에는 컨슈머를 재시작한다.")
DOCS = [
    {"slug": "kafka-lag", "title": "카프카 컨슈머 지연 줄이기",
     "body": f"{INTRO}\n\n## 폴링 간격\n\n{POLL}\n\n## 하트비트\n\n{BEAT}"},
    {"slug": "redis-ttl", "title": "레디스 캐시 만료 설계",
     "body": "만료 시간에 무작위 지터를 더하면 키들이 서로 다른 시각에 만료된다."},
]


def q(qid, passage, slug="kafka-lag", **extra):
    return {"id": qid, "question": f"{qid}에 대한 질문은?", "gold_slug": slug, "gold_passage": passage, **extra}


H = [q("h01", "컨슈머는 그룹에서 쫓겨나고 리밸런싱이 일어난다"),
     q("h02", "설정을 바꾼 뒤에는 컨슈머를 재시작한다"),          # in two sections: two gold chunks
     q("h03", "처리한 위치의 차이다.\n\n## 폴링 간격")]         # in the body, across two chunks
P = [q("p01", "이 문장은 어디에도 없다"),
     q("p02", "주키퍼가 세션을 관리한다", slug="zookeeper-notes"),
     q("p03", "키들이 서로 다른 시각에 만료된다", slug="redis-ttl")]
G = [q("g01", "브로커는 컨슈머가 죽었다고 판단한다", key_terms=["session.timeout.ms"]),    # term in gold chunk
     q("g02", "브로커는 컨슈머가 죽었다고 판단한다", key_terms=["max.poll.interval.ms"]),  # term elsewhere
     q("g03", "브로커는 컨슈머가 죽었다고 판단한다"),                                      # no key_terms
     q("g04", "브로커는 컨슈머가 죽었다고 판단한다", key_terms=["max.poll.records"])]      # term nowhere


@pytest.fixture
def stage(tmp_path):
    """Docs, chunks from the real chunks stage, and three question sets; returns a runner."""
    docs = write_lines(tmp_path / "docs.jsonl", DOCS)
    chunk_path = tmp_path / "chunks.jsonl"
    chunks.chunks(input=SimpleNamespace(docs=str(docs)), output=SimpleNamespace(chunks=str(chunk_path)),
               params=SimpleNamespace(settings={"max_chars": 1000}, chunker="paragraph", format="manifests",
                                      t1_template=settings()["chunking"]["t1_template"]))
    sets = {name: str(write_lines(tmp_path / "questions" / f"questions-{name.lower()}.jsonl", rows))
            for name, rows in (("H", H), ("P", P), ("G", G))}
    gold, canonical = tmp_path / "gold.json", tmp_path / "questions.jsonl"
    records = tmp_path / "question-sets.json"

    def run(strict, sets=sets):
        normalise(canonical, sets, records)
        qcheck.qcheck(input=SimpleNamespace(docs=str(docs), chunks=str(chunk_path), questions=str(canonical)),
                   output=SimpleNamespace(gold=str(gold)), params=SimpleNamespace(gap_sets=["G"], strict=strict))
        return json.loads(gold.read_text(encoding="utf-8"))

    def chunk_id(fragment):
        """The id of the one chunk whose text holds `fragment`."""
        (cid,) = [c["chunk_id"] for c in read_lines(chunk_path) if fragment in c["text"]]
        return cid

    return SimpleNamespace(run=run, sets=sets, gold=gold, canonical=canonical, records=records,
                           chunk_id=chunk_id)


def normalise(canonical, sets, records):
    """The `questions` stage: every set into one canonical file, and what it read."""
    questions.questions(input=SimpleNamespace(), output=SimpleNamespace(questions=str(canonical), sets=str(records)),
                  params=SimpleNamespace(sets=question_sets(sets), corpus={}, store=str(Path(canonical).parent / "store")))


def load(paths: dict) -> list[dict]:
    return load_question_sets(question_sets(paths))[0]


def test_strict_mode_lists_every_problem_by_file_line_and_id_and_writes_no_gold(stage):
    with pytest.raises(InputError) as e:
        stage.run(strict=True)
    message = str(e.value)
    assert f"{stage.sets['H']}:3: h03: passage across a chunk boundary" in message
    assert f"{stage.sets['P']}:1: p01: passage missing" in message
    assert f"{stage.sets['P']}:2: p02: gold document missing" in message
    for ok in ("h01", "h02", "p03", "g01", "g02", "g03", "g04"):
        assert f": {ok}:" not in message
    assert not stage.gold.exists()


def test_non_strict_mode_writes_gold_with_every_status(stage):
    gold = stage.run(strict=False)
    found = gold["questions"]
    assert {qid: r["status"] for qid, r in found.items()} == {
        "h01": "ok", "h02": "ok", "h03": "across_boundary", "p01": "missing_passage",
        "p02": "missing_doc", "p03": "ok", "g01": "ok", "g02": "ok", "g03": "ok", "g04": "ok"}
    poll, beat = stage.chunk_id("리밸런싱"), stage.chunk_id("하트비트가")
    assert found["h01"]["gold_chunks"] == [poll]
    assert found["h02"]["gold_chunks"] == [poll, beat]
    assert found["p03"]["gold_chunks"] == [stage.chunk_id("지터")]
    assert found["h03"]["gold_chunks"] == [] and found["p02"]["gold_chunks"] == []
    assert found["h01"]["set"] == "H" and found["h01"]["gold_slug"] == "kafka-lag"
    lines = stage.canonical.read_text(encoding="utf-8").splitlines(keepends=True)
    records = json.loads(stage.records.read_text(encoding="utf-8"))
    for name, path in stage.sets.items():
        rows = [json.loads(line) for line in lines if json.loads(line)["set"] == name]
        assert all(r.pop("generated") is False for r in rows)   # a mark beside what the question says
        own = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n" for r in rows)
        assert records[name]["content_sha256"] == hashlib.sha256(own.encode("utf-8")).hexdigest()
        assert records[name]["kinds"] == {"passage": 3 if name != "G" else 4}
        assert [f["path"] for f in records[name]["files"]] == [path]
        assert records[name]["files"][0]["sha256"] == hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_the_summary_names_questions_with_several_gold_chunks_and_boundary_problems(stage, capsys):
    stage.run(strict=False)
    out = capsys.readouterr().out
    h_line = next(line for line in out.splitlines() if line.startswith("H 3 (passage gold):"))
    assert "several gold chunks 1 ['h02']" in h_line
    assert "across a chunk boundary 1 ['h03']" in h_line
    p_line = next(line for line in out.splitlines() if line.startswith("P 3 (passage gold):"))
    assert "gold document missing 1" in p_line and "passage missing 1" in p_line


def test_gap_check_key_terms_must_sit_outside_the_gold_chunk(stage, capsys):
    found = stage.run(strict=False)["questions"]
    assert found["g01"]["gap_violation"] == "gold chunk contains ['session.timeout.ms']"
    assert found["g02"]["gap_violation"] is None
    assert found["g03"]["gap_violation"] == "no key_terms given"
    assert found["g04"]["gap_violation"] == "no other chunk of the document contains the key terms"
    assert "gap_violation" not in found["h01"]  # only gap sets are checked
    out = capsys.readouterr().out
    assert "gap-set automatic check violations 3" in out
    assert "  g01: gold chunk contains ['session.timeout.ms']" in out
    assert "  g03: no key_terms given" in out
    assert "g02:" not in out


# ---- question files -----------------------------------------------------------------------

def test_a_question_id_repeated_in_another_set_names_both_places(tmp_path, stage):
    h = write_lines(tmp_path / "h.jsonl", [q("h01", "가"), q("h02", "나")])
    p = write_lines(tmp_path / "p.jsonl", [q("p01", "다"), q("p02", "라"), q("h02", "마")])
    with pytest.raises(InputError) as e:
        load({"H": str(h), "P": str(p)})
    assert str(e.value).startswith(f"{p}:3: duplicate question id 'h02'")
    assert f"{h}:2" in str(e.value)
    # the stage reports it the same way, before writing anything
    with pytest.raises(InputError, match="duplicate question id 'h02'"):
        stage.run(strict=False, sets={"H": str(h), "P": str(p)})
    assert not stage.gold.exists()


@pytest.mark.parametrize("field", ["id", "question", "gold_slug", "gold_passage"])
def test_a_missing_or_empty_required_field_names_file_and_line(tmp_path, field):
    broken = q("h02", "나")
    del broken[field]
    empty = dict(q("h03", "다"), **{field: "  "})
    path = write_lines(tmp_path / "h.jsonl", [q("h01", "가"), broken])
    if field != "gold_slug":   # a passage alone names its document by being found in it (test_gold_copied)
        with pytest.raises(InputError) as e:
            load({"H": str(path)})
        missing = ("give exactly one of gold_passage, gold_chunks, gold_docs, gold_any (none given)"
                   if field == "gold_passage" else f"field '{field}' is missing or empty")
        assert str(e.value) == f"{path}:2: {missing}"
    path = write_lines(tmp_path / "h.jsonl", [q("h01", "가"), "", empty])
    with pytest.raises(InputError) as e:
        load({"H": str(path)})
    assert str(e.value) == f"{path}:3: field '{field}' is missing or empty"


def test_a_malformed_question_line_names_file_and_line(tmp_path, stage):
    path = write_lines(tmp_path / "h.jsonl", [q("h01", "가"), '{"id": "h02", "question": "닫히지 않은 줄"'])
    with pytest.raises(InputError) as e:
        load({"H": str(path)})
    assert str(e.value).startswith(f"{path}:2: malformed JSON")
    with pytest.raises(InputError, match=re.escape(f"{path}:2: malformed JSON")):
        stage.run(strict=True, sets={"H": str(path)})


def test_key_terms_must_be_a_list_of_strings(tmp_path):
    path = write_lines(tmp_path / "g.jsonl", [q("g01", "가", key_terms="max.poll.records")])
    with pytest.raises(InputError) as e:
        load({"G": str(path)})
    assert str(e.value) == f"{path}:1: field 'key_terms' must be a list of non-empty strings"


def test_questions_keep_set_file_and_line(tmp_path):
    h = write_lines(tmp_path / "h.jsonl", [q("h01", "가"), "", q("h02", "나")])
    g = write_lines(tmp_path / "g.jsonl", [q("g01", "다", key_terms=["키"])])
    loaded = load({"H": str(h), "G": str(g)})
    assert [(x["id"], x["set"], x["file"], x["line"]) for x in loaded] == [
        ("h01", "H", str(h), 1), ("h02", "H", str(h), 3), ("g01", "G", str(g), 1)]
    assert loaded[0]["key_terms"] == [] and loaded[2]["key_terms"] == ["키"]


def test_a_reformatted_file_gives_the_same_canonical_bytes_and_an_edit_does_not(stage, tmp_path):
    normalise(stage.canonical, stage.sets, stage.records)
    before = stage.canonical.read_bytes()
    h = Path(stage.sets["H"])
    rows = read_lines(h)
    # other key order, ASCII escapes, indentation-free spacing and blank lines: the same questions
    with open(h, "w", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(dict(reversed(r.items())), ensure_ascii=True, separators=(" , ", " : "))
                          for r in rows) + "\n\n\n")
    normalise(stage.canonical, stage.sets, stage.records)
    assert stage.canonical.read_bytes() == before
    rows[1]["question"] = "h02에 대한 질문을 고쳤다"
    write_lines(h, rows)
    normalise(stage.canonical, stage.sets, stage.records)
    old, new = (by_id(text) for text in (before.decode("utf-8"), stage.canonical.read_text(encoding="utf-8")))
    assert [qid for qid in new if new[qid] != old[qid]] == ["h02"]


def by_id(canonical_text):
    return {row["id"]: row for row in map(json.loads, canonical_text.splitlines())}
