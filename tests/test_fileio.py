"""fileio: JSONL with file:line errors, atomic writes."""
import hashlib
import os

import pytest

from conftest import tmp_leftovers, write_lines
from ctxret import fileio
from ctxret.errors import InputError


def test_read_jsonl_skips_blank_lines_and_keeps_true_line_numbers(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "h01", "q": "첫째"}\n\n   \n{"id": "h02", "q": "둘째"}\n\n', encoding="utf-8")
    assert fileio.read_jsonl(path) == [{"id": "h01", "q": "첫째"}, {"id": "h02", "q": "둘째"}]
    assert [n for n, _ in fileio.iter_jsonl(path)] == [1, 4]


def test_a_malformed_line_is_an_error_naming_path_and_line(tmp_path):
    path = write_lines(tmp_path / "q.jsonl", [{"id": "h01"}, "", '{"id": "h02", "q": "따옴표가 없다}'])
    with pytest.raises(InputError) as e:
        fileio.read_jsonl(path)
    assert str(e.value).startswith(f"{path}:3: malformed JSON")


@pytest.mark.parametrize("line", ['["h02", "목록"]', '"그냥 문자열"', "42", "null"])
def test_a_line_that_is_not_an_object_is_an_error_naming_path_and_line(tmp_path, line):
    path = write_lines(tmp_path / "q.jsonl", [{"id": "h01"}, line])
    with pytest.raises(InputError) as e:
        fileio.read_jsonl(path)
    assert str(e.value) == f"{path}:2: expected a JSON object"


def test_missing_and_non_utf8_files_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        fileio.read_jsonl(tmp_path / "none.jsonl")
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes('{"q": "caf\u00e9"}\n'.encode("latin-1"))
    with pytest.raises(InputError) as e:
        fileio.read_jsonl(latin)
    assert str(latin) in str(e.value) and "UTF-8" in str(e.value)


def test_read_json_names_the_line_of_a_syntax_error(tmp_path):
    path = tmp_path / "m.json"
    path.write_text('{\n  "slug": "a",\n  "title": "제목",\n}\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        fileio.read_json(path)
    assert str(e.value).startswith(f"{path}:4: malformed JSON")


def test_write_jsonl_round_trips_and_keeps_korean_readable(tmp_path):
    rows = [{"slug": "kafka-lag", "title": "카프카 컨슈머 지연"}, {"slug": "redis-ttl", "n": 2}]
    path = tmp_path / "sub" / "rows.jsonl"
    fileio.write_jsonl(path, rows)
    assert fileio.read_jsonl(path) == rows
    assert "카프카 컨슈머 지연" in path.read_text(encoding="utf-8")
    assert fileio.sha256_file(path) == hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_atomic_write_that_fails_midway_leaves_the_old_content(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text("예전 내용\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="중간에 실패"):
        with fileio.atomic_path(path) as tmp:
            tmp.write_text("반쯤 쓴 새 내용", encoding="utf-8")
            raise RuntimeError("중간에 실패")
    assert path.read_text(encoding="utf-8") == "예전 내용\n"
    assert tmp_leftovers(tmp_path) == []

    fresh = tmp_path / "new.jsonl"
    with pytest.raises(RuntimeError):
        with fileio.atomic_path(fresh) as tmp:
            tmp.write_text("반쯤", encoding="utf-8")
            raise RuntimeError("중간에 실패")
    assert not fresh.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.jsonl"]


def test_an_atomic_write_that_succeeds_replaces_the_content(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text("예전 내용\n", encoding="utf-8")
    fileio.write_text(path, "새 내용\n")
    assert path.read_text(encoding="utf-8") == "새 내용\n"
    assert tmp_leftovers(tmp_path) == []


def test_written_files_get_the_usual_permissions(tmp_path):
    # an atomically written output gets the same mode as a plainly written file (umask)
    plain = tmp_path / "plain.txt"
    plain.write_text("보통 파일\n", encoding="utf-8")
    atomic = tmp_path / "atomic.txt"
    fileio.write_text(atomic, "원자적으로 쓴 파일\n")
    assert oct(os.stat(atomic).st_mode & 0o777) == oct(os.stat(plain).st_mode & 0o777)
