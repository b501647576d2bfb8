"""What a power cut or a full disk can leave in the store: a paid answer cut short or empty is moved
aside and asked again with a line saying so; a damaged vector database is named with what to do."""
from __future__ import annotations

import json
import re
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import backend_for
from workflow import ROOT

from ctxret.contexts.per_document import ContextStore, write_document
from ctxret.contexts.prompt import read_prompt
from ctxret.errors import InputError
from ctxret.store import VectorStore


@pytest.mark.parametrize("damage", [b"", b'{"context": "\xec\x9d\xb4 \xec\xb2'])   # empty; cut mid-character
def test_a_damaged_answer_is_moved_aside_and_named_as_paid_again(tmp_path, capsys, damage):
    answers = ContextStore(str(tmp_path)).answers
    answers.put("ab12", {"context": "이 청크는 …"})
    answers.path("ab12").write_bytes(damage)
    assert answers.get("ab12") is None
    [moved] = (tmp_path / "quarantine" / "ctx" / "ab").iterdir()
    assert moved.name.startswith("ab12.json.") and moved.read_bytes() == damage
    assert not answers.path("ab12").exists()
    err = capsys.readouterr().err
    assert err.startswith(f"store: {answers.path('ab12')} is damaged (") and err.endswith(
        f"moved to {moved}; it is paid for again\n")
    answers.put("ab12", {"context": "다시"})                     # asked again, stored again
    assert answers.get("ab12") == {"context": "다시"}


def test_a_halved_vector_database_is_named_with_what_to_do(tmp_path):
    store = VectorStore(tmp_path, "emb", "e5")
    keys = [f"k{i:05d}" for i in range(3000)]
    store.save(keys, np.random.default_rng(0).standard_normal((3000, 384)).astype(np.float32))
    size = store.path.stat().st_size
    with open(store.path, "r+b") as f:
        f.truncate(size // 2)
    with pytest.raises(InputError) as e:
        store.load(keys)
    assert str(e.value).startswith(f"{store.path}: ") and "is damaged; move it aside" in str(e.value)
    assert f"mv {store.path} {store.path}.damaged" in str(e.value)


def test_a_store_that_cannot_be_written_stops_the_job_before_anything_is_paid(tmp_path, fake_claude):
    """(Tests run as root, for whom no directory is read-only: the store's ctx/ is a file here.)"""
    llm, calls = fake_claude
    store = ContextStore(str(tmp_path / "store"))
    store.answers.dir.parent.mkdir()
    store.answers.dir.write_text("not a directory", encoding="utf-8")
    doc = {"slug": "d", "title": "제목", "body": "## 절\n\n본문 문단이다."}
    chunk = {"chunk_id": "00001", "slug": "d", "title": "제목", "section": "절", "text": "본문 문단이다."}
    params = SimpleNamespace(extra_sentence="", attempts=1, backoff_s=0, store=str(tmp_path / "store"))
    with pytest.raises(InputError, match=f"store {store.answers.dir} is not writable .*nothing was paid"):
        write_document(tmp_path / "out.jsonl", "A1", doc, [chunk], backend_for(llm),
                       read_prompt(ROOT / "config" / "context-prompt.txt"), params, store)
    assert calls() == [] and not (tmp_path / "out.jsonl").exists()


def _blocked(directory) -> None:
    """Every `<ab>/` of a store kind a file: the kind's directory passes the writable check, then
    no answer can be written under it (as when a directory turns file, or the disk fills, between
    the check and the write)."""
    directory.mkdir(parents=True)
    for i in range(256):
        (directory / f"{i:02x}").write_text("not a directory", encoding="utf-8")


def _write_two_chunks(tmp_path, llm, store) -> None:
    """A1 contexts of a two-chunk document into `tmp_path/out.jsonl`."""
    doc = {"slug": "d", "title": "제목", "body": "## 절\n\n첫째 문단이다.\n\n둘째 문단이다."}
    chunks = [{"chunk_id": f"0000{i}", "slug": "d", "title": "제목", "section": "절", "text": text}
              for i, text in enumerate(("첫째 문단이다.", "둘째 문단이다."))]
    params = SimpleNamespace(extra_sentence="", attempts=1, backoff_s=0, store=str(tmp_path / "store"))
    write_document(tmp_path / "out.jsonl", "A1", doc, chunks, backend_for(llm),
                   read_prompt(ROOT / "config" / "context-prompt.txt"), params, store)


def test_an_answer_the_store_cannot_take_is_kept_pending_and_not_paid_again(tmp_path, fake_claude):
    llm, calls = fake_claude
    store = ContextStore(str(tmp_path / "store"))
    _blocked(store.answers.dir)
    out = tmp_path / "out.jsonl"
    with pytest.raises(InputError) as e:
        _write_two_chunks(tmp_path, llm, store)
    [kept] = store.pending.dir.rglob("*.json")
    assert re.fullmatch(rf"d chunk 00000: the paid answer could not be stored in {store.answers.dir}/\w\w/"
                        rf"{kept.stem}\.json \(File exists\); it is kept in {kept}, which the next run reads "
                        rf"instead of paying again; repair the store and rerun", str(e.value)), str(e.value)
    assert len(calls()) == 1 and not out.exists()                        # stopped at once
    paid = json.loads(kept.read_text(encoding="utf-8"))["context"]
    for blocker in store.answers.dir.iterdir():                           # the store repaired
        blocker.unlink()
    _write_two_chunks(tmp_path, llm, store)
    assert len(calls()) == 2                                             # only the second chunk paid
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert records[0]["context"] == paid and store.answers.get(kept.stem)["context"] == paid
    assert not list(store.pending.dir.rglob("*.json"))


def test_an_answer_that_cannot_be_kept_anywhere_is_printed_in_the_log(tmp_path, fake_claude, capsys):
    llm, calls = fake_claude
    store = ContextStore(str(tmp_path / "store"))
    _blocked(store.answers.dir)
    _blocked(store.pending.dir)
    with pytest.raises(InputError, match=r"d chunk 00000: the paid answer could not be stored in .*, nor kept in "
                                         rf"{store.pending.dir} \(File exists\): the answer is the line above"):
        _write_two_chunks(tmp_path, llm, store)
    [line] = capsys.readouterr().err.splitlines()
    assert len(calls()) == 1 and json.loads(line)["context"]


def test_failed_attempts_the_store_cannot_record_are_one_line(tmp_path, fake_claude, monkeypatch):
    llm, calls = fake_claude
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "empty:100")
    store = ContextStore(str(tmp_path / "store"))
    _blocked(store.failures.dir)
    with pytest.raises(InputError, match=rf"store: the failed attempts could not be recorded in {store.failures.dir}/"
                                         r"\w\w/\w+\.json \(File exists\); repair the store and rerun"):
        _write_two_chunks(tmp_path, llm, store)
    assert len(calls()) == 1 and not (tmp_path / "out.jsonl").exists()
