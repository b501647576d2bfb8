"""A result changed or cut after the job that wrote it: the job that reads it stops naming it, and the
workflow, as it is read, moves it aside so that its producer writes it again (ctxret.runtime.output_records). The
whole workflow's side (a cut run written again, the same score) is in test_report.py, on its run."""
from __future__ import annotations

import os
import re

import numpy as np
import pytest
from conftest import write_lines

from ctxret.errors import InputError
from ctxret.fileio import sha256_file, write_npy
from ctxret.runtime import output_records


@pytest.fixture
def results(tmp_path):
    """A results folder with a variant (6 lines) and a matrix, recorded as their jobs record them."""
    res = tmp_path / "results"
    var = write_lines(res / "var-T1.jsonl", [{"chunk_id": f"{i:05d}", "text": f"본문 {i}"} for i in range(6)])
    write_npy(res / "emb" / "T1-e5.npy", np.arange(600, dtype=np.float32).reshape(6, 100))
    output_records.record(str(res), [str(var)], "variant")
    output_records.record(str(res), [str(res / "emb" / "T1-e5.npy"), str(tmp_path / "elsewhere.txt")], "embed_chunks")
    return res


def cut_keeping_time(path, size: int) -> None:
    stat = os.stat(path)
    os.truncate(path, size)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_a_variant_cut_to_half_its_lines_stops_its_reader_naming_it(results):
    var = results / "var-T1.jsonl"
    expected, size = sha256_file(var), var.stat().st_size
    var.write_text("".join(var.read_text(encoding="utf-8").splitlines(keepends=True)[:3]), encoding="utf-8")
    with pytest.raises(InputError) as e:
        output_records.verify(str(results), [str(var), str(results / "emb" / "T1-e5.npy")])
    assert str(e.value) == (f"{var}: does not match what variant wrote (sha256 {sha256_file(var)[:12]}…, "
                            f"{var.stat().st_size:,} bytes; expected {expected[:12]}…, {size:,} bytes): it was changed "
                            f"or cut after it was written; run again: variant writes it again")
    assert [p for p, _ in output_records.damaged(str(results))] == [f"{results}/var-T1.jsonl"]


def test_a_matrix_cut_with_its_time_kept_is_found_and_moved_aside_for_its_job_to_write_again(results):
    npy = results / "emb" / "T1-e5.npy"
    size = npy.stat().st_size
    cut_keeping_time(npy, size // 2)
    damaged = npy.read_bytes()
    [(path, line)] = output_records.set_aside_damaged(str(results), dry_run=True)       # a dry run moves nothing
    assert path == f"{results}/emb/T1-e5.npy" and npy.exists()
    assert line.endswith(f"embed_chunks writes it again (a run moves it to {results}/quarantine/ first)")
    [(path, line)] = output_records.set_aside_damaged(str(results), dry_run=False)
    [moved] = (results / "quarantine" / "emb").iterdir()
    assert not npy.exists() and moved.name.startswith("T1-e5.npy.") and moved.read_bytes() == damaged
    assert re.fullmatch(rf"{path}: does not match what embed_chunks wrote \(sha256 \w{{12}}…, {size // 2:,} bytes; "
                        rf"expected \w{{12}}…, {size:,} bytes\): it was changed or cut after it was written; "
                        rf"embed_chunks writes it again; moved to {moved}", line)
    assert output_records.set_aside_damaged(str(results), dry_run=False) == []            # gone: Snakemake writes it


def test_a_file_only_touched_is_not_damaged_and_is_hashed_once(results):
    var = results / "var-T1.jsonl"
    os.utime(var, ns=(0, var.stat().st_mtime_ns + 10**9))
    assert list(output_records.damaged(str(results))) == []
    record = output_records.record_path(str(results), str(var))
    assert f'"mtime_ns": {var.stat().st_mtime_ns}' in record.read_text(encoding="utf-8")   # not hashed again
    output_records.verify(str(results), [str(var)])


def test_a_change_that_keeps_size_and_time_is_caught_by_the_reader_then_by_the_next_run(results):
    var = results / "var-T1.jsonl"
    text = var.read_text(encoding="utf-8")
    stat = var.stat()
    var.write_text(text.replace("본문 3", "본문 4"), encoding="utf-8")
    os.utime(var, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert list(output_records.damaged(str(results))) == []                # size and time alone cannot see it
    with pytest.raises(InputError, match="does not match what variant wrote"):
        output_records.verify(str(results), [str(var)])
    assert [p for p, _ in output_records.damaged(str(results))] == [f"{results}/var-T1.jsonl"]


def test_a_job_that_writes_again_forgets_the_old_record_first(results):
    var = results / "var-T1.jsonl"
    output_records.forget(str(results), [str(var)])
    var.write_text("", encoding="utf-8")                              # killed half-way: nothing to contradict
    output_records.verify(str(results), [str(var)])
    assert list(output_records.damaged(str(results))) == []
    assert output_records.record_path(str(results), str(results.parent / "elsewhere.txt")) is None


def test_a_named_result_whose_record_was_deleted_is_moved_aside_by_the_next_run(results):
    var = results / "var-T1.jsonl"
    output_records.record_path(str(results), str(var)).unlink()                # the record deleted,
    var.write_text("".join(var.read_text(encoding="utf-8").splitlines(keepends=True)[:3]), encoding="utf-8")  # then cut
    assert output_records.set_aside_damaged(str(results), dry_run=False) == []   # not named: not looked for
    [(path, line)] = output_records.set_aside_damaged(str(results), dry_run=False, outputs=[str(var)])
    [moved] = (results / "quarantine").iterdir()
    assert path == str(var) and not var.exists() and len(moved.read_text(encoding="utf-8").splitlines()) == 3
    assert line == (f"{var}: no record of the job that wrote it (logs/written/): it cannot be checked; its job "
                    f"writes it again; moved to {moved}")
