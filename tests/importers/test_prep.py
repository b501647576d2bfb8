"""prep: manifests + bodies -> docs-all.jsonl / docs.jsonl, with a slugs file frozen on the first run."""
import hashlib
import json

import pytest
from conftest import prep_io, read_lines, run_prep, tmp_leftovers, write_article

from ctxret.errors import InputError
from ctxret.runtime.stage_runner import run_logged
from ctxret.stages import prep

KAFKA = ("컨슈머 지연은 브로커에 쌓인 메시지와 컨슈머가 처리한 위치의 차이다.\n\n"
         "## 폴링 간격\n\n`max.poll.interval.ms`를 넘기면 컨슈머는 그룹에서 쫓겨난다.\n")
REDIS = "캐시 만료 시간을 모두 같게 두면 한꺼번에 만료된다.\n\n## 축출 정책\n\n`allkeys-lru`는 모든 키에서 고른다."
RAG = "평가 질문 예: max.poll.interval.ms를 넘기면 무슨 일이 생기나?"


@pytest.fixture
def corpus(tmp_path):
    articles = tmp_path / "articles"
    write_article(articles, "kafka-lag", KAFKA, title="카프카 컨슈머 지연 줄이기", tags=["kafka"])
    write_article(articles, "rag-notes", RAG, title="평가 질문 메모", tags=["RAG", "notes"])
    write_article(articles, "redis-ttl", REDIS, title="레디스 캐시 만료 설계", tags=["redis"])
    return articles


def test_reads_manifests_and_bodies_and_excludes_the_rag_tag(corpus, tmp_path):
    out = tmp_path / "out"
    output, _ = run_prep(corpus, out)

    all_docs = read_lines(output.docs_all)
    kept = read_lines(output.docs)
    assert [d["slug"] for d in all_docs] == ["kafka-lag", "rag-notes", "redis-ttl"]
    assert [d["slug"] for d in kept] == ["kafka-lag", "redis-ttl"]
    kafka = kept[0]
    assert kafka["title"] == "카프카 컨슈머 지연 줄이기"
    assert kafka["tags"] == ["kafka"]
    assert kafka["body"] == KAFKA.strip()
    assert kafka["chars"] == len(KAFKA.strip())
    assert kept[1]["body"] == REDIS
    assert tmp_leftovers(out) == []


def test_sha256_in_each_record_is_the_sha256_of_its_body(corpus, tmp_path):
    write_article(corpus, "crlf", "  첫 줄\r\n\r\n둘째 줄\r\n\n", title="줄바꿈")
    output, _ = run_prep(corpus, tmp_path / "out")
    for doc in read_lines(output.docs_all):
        assert doc["sha256"] == hashlib.sha256(doc["body"].encode("utf-8")).hexdigest()
    crlf = next(d for d in read_lines(output.docs_all) if d["slug"] == "crlf")
    assert crlf["body"] == "첫 줄\n\n둘째 줄"


def test_first_run_writes_the_slugs_file_and_later_runs_read_only_that_list(corpus, tmp_path, capsys):
    out = tmp_path / "out"
    output, params = run_prep(corpus, out)
    slugs_file = out / "slugs.txt"
    assert slugs_file.read_text(encoding="utf-8") == "kafka-lag\nredis-ttl\n"
    assert f"{slugs_file}: written now" in capsys.readouterr().out
    first_docs = (out / "docs.jsonl").read_bytes()

    # A new article after the first run (it would sort first): not picked up.
    write_article(corpus, "aaa-new", "새로 추가한 글이다.", title="새 글")
    output, _ = run_prep(corpus, out)
    assert "written now" not in capsys.readouterr().out
    assert slugs_file.read_text(encoding="utf-8") == "kafka-lag\nredis-ttl\n"
    assert (out / "docs.jsonl").read_bytes() == first_docs
    assert "aaa-new" in [d["slug"] for d in read_lines(output.docs_all)]

    # Nor does a tag change after the freeze drop a listed document.
    write_article(corpus, "kafka-lag", KAFKA, title="카프카 컨슈머 지연 줄이기", tags=["RAG"])
    output, _ = run_prep(corpus, out)
    assert [d["slug"] for d in read_lines(output.docs)] == ["kafka-lag", "redis-ttl"]
    assert slugs_file.read_text(encoding="utf-8") == "kafka-lag\nredis-ttl\n"

def test_the_slugs_file_decides_order_and_membership(corpus, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "slugs.txt").write_text("redis-ttl\n\nrag-notes\n", encoding="utf-8")
    output, _ = run_prep(corpus, out)
    assert [d["slug"] for d in read_lines(output.docs)] == ["redis-ttl", "rag-notes"]


def test_a_frozen_slug_without_a_manifest_is_an_error_naming_the_slugs_file(corpus, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    slugs_file = out / "slugs.txt"
    slugs_file.write_text("kafka-lag\ngone-away\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        run_prep(corpus, out)
    assert str(slugs_file) in str(e.value) and "gone-away" in str(e.value)
    assert not (out / "docs.jsonl").exists() and not (out / "docs-all.jsonl").exists()


# ---- bad input: one clear error naming the file, nothing half-written --------------------

def _malformed_json(articles):
    path = articles / "bad.json"
    path.write_text('{\n "slug": "bad",\n "title": "깨진 매니페스트"\n "body": "bad.mdx"\n}\n', encoding="utf-8")
    (articles / "bad.mdx").write_text("본문", encoding="utf-8")
    line = 1 + path.read_text(encoding="utf-8").splitlines().index(' "body": "bad.mdx"')
    return [f"{path}:{line}:", "malformed JSON"]


def _duplicate_slug(articles):
    again = write_article(articles, "kafka-lag", "같은 슬러그의 다른 글.", name="zz-copy")
    return [str(again), str(articles / "kafka-lag.json"), "duplicate slug 'kafka-lag'"]


def _empty_body(articles):
    write_article(articles, "empty", "  \n\n\t\n", title="빈 글")
    return [str(articles / "empty.mdx"), "empty"]


def _dotdot_slug(articles):
    manifest = write_article(articles, "../x", "밖으로 나가려는 글.", name="escape")
    return [str(manifest), "'../x'"]


def _slash_slug(articles):
    manifest = write_article(articles, "a/b", "하위 디렉터리를 만들려는 글.", name="nested")
    return [str(manifest), "'a/b'"]


def _missing_body(articles):
    manifest = write_article(articles, "lost", "곧 지워질 본문.")
    (articles / "lost.mdx").unlink()
    return [str(manifest), "lost.mdx", "not found"]


def _body_outside(articles):
    (articles.parent / "outside.mdx").write_text("디렉터리 밖의 본문.", encoding="utf-8")
    manifest = articles / "outside.json"
    manifest.write_text(json.dumps({"slug": "outside", "title": "밖", "body": "../outside.mdx"}), encoding="utf-8")
    return [str(manifest), "../outside.mdx", "lies outside"]


BAD = {"malformed-json": _malformed_json, "duplicate-slug": _duplicate_slug, "empty-body": _empty_body,
       "dotdot-slug": _dotdot_slug, "slash-slug": _slash_slug, "missing-body": _missing_body,
       "body-outside": _body_outside}


def _assert_nothing_written(out):
    for name in ("docs-all.jsonl", "docs.jsonl", "slugs.txt"):
        assert not (out / name).exists(), f"{name} was written despite the error"
    assert not out.exists() or tmp_leftovers(out) == []


@pytest.mark.parametrize("make_bad", BAD.values(), ids=BAD.keys())
def test_bad_input_is_one_error_naming_the_file_and_writes_nothing(corpus, tmp_path, make_bad):
    expected = make_bad(corpus)
    out = tmp_path / "out"
    with pytest.raises(InputError) as e:
        run_prep(corpus, out)
    for part in expected:
        assert part in str(e.value)
    _assert_nothing_written(out)


def test_a_bad_input_through_run_logged_is_one_error_line_and_exit_1(corpus, tmp_path, capsys):
    expected = _malformed_json(corpus)
    out = tmp_path / "out"
    input, output, params = prep_io(corpus, out)
    log = tmp_path / "logs" / "prep.log"
    with pytest.raises(SystemExit) as e:
        run_logged(lambda: prep.prep(input=input, output=output, params=params), str(log))
    assert e.value.code == 1
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert expected[0] in lines[0]
    assert "Traceback" not in err
    assert log.read_text(encoding="utf-8") == err
    _assert_nothing_written(out)


def test_a_slug_with_a_trailing_newline_is_rejected(corpus, tmp_path):
    # a slug with a trailing newline is not a plain name
    manifest = write_article(corpus, "new-doc\n", "슬러그 끝에 줄바꿈이 붙은 글.", name="new-doc")
    out = tmp_path / "out"
    with pytest.raises(InputError) as e:
        run_prep(corpus, out)
    assert str(manifest) in str(e.value)
    _assert_nothing_written(out)


def test_a_slug_listed_twice_in_the_slugs_file_is_an_error(corpus, tmp_path):
    # a repeated line in the hand-editable slugs file names the file and line
    out = tmp_path / "out"
    out.mkdir()
    slugs_file = out / "slugs.txt"
    slugs_file.write_text("kafka-lag\nredis-ttl\nkafka-lag\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        run_prep(corpus, out)
    assert f"{slugs_file}:3" in str(e.value)
    assert not (out / "docs.jsonl").exists()


def test_a_body_that_is_a_directory_is_an_input_error(corpus, tmp_path):
    # a body naming a directory is one clear error, not a traceback
    (corpus / "drafts").mkdir()
    manifest = corpus / "drafts.json"
    manifest.write_text(json.dumps({"slug": "drafts", "title": "초안", "body": "drafts"}), encoding="utf-8")
    out = tmp_path / "out"
    with pytest.raises(InputError) as e:
        run_prep(corpus, out)
    assert str(manifest) in str(e.value)
    _assert_nothing_written(out)
