"""What must never be scored, and the filesystem's refusals: a Qdrant shard changed after the index
built it (zeroed vectors, a file gone) is refused by the search that would read it and set aside,
with its index manifest, as the next run starts, so that the index builds it again; a run file cut
short or with a line repeated is refused by its reader; a full disk or a read-only folder is one
line naming the file, with nothing half-written left (on a tiny tmpfs: where this runs as root
with mount, else those tests skip)."""
from __future__ import annotations

import contextlib
import errno
import os
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import write_lines

from ctxret.errors import InputError
from ctxret.fileio import write_json, write_text
from ctxret.retrieval.qdrant import open_engine
from ctxret.retrieval.shard_records import shard_problem
from ctxret.retrieval.runs import read_run
from ctxret.runtime import output_records
from ctxret.runtime.stage_runner import run_logged
from ctxret.stages.index import build_embedded, fill

ROWS = [{"chunk_id": f"c{i}", "slug": "doc"} for i in range(6)]


def vectors() -> np.ndarray:
    v = np.random.default_rng(0).normal(size=(len(ROWS), 8)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def build(path: str) -> tuple[bool, int]:
    matrix = sp.csr_matrix(np.eye(len(ROWS), 4, dtype=np.float32))
    return build_embedded(path, "fp", lambda engine: fill(engine, ROWS, {"e5": vectors()}, matrix, None))


def top_hit(path: str) -> str:
    with open_engine(path=path, chunk_ids=[r["chunk_id"] for r in ROWS]) as engine:
        return engine.search("e5", [vectors()[2]], 1, exact=True)[0][0][0]


@pytest.fixture
def indexed(tmp_path):
    """results/ with a shard built by the index and its manifest, recorded as the index job records it."""
    results = tmp_path / "results"
    shard = results / "qdrant" / "v_T1"
    assert build(str(shard)) == (True, len(ROWS))
    manifest = results / "index" / "v_T1.json"
    write_json(manifest, {"collection": "v_T1", "points": len(ROWS), "shard": str(shard)})
    output_records.record(str(results), [str(manifest)], "index")
    return results, shard, manifest


def vector_file(shard) -> str:
    [path] = [os.path.join(r, f) for r, _, fs in os.walk(shard) for f in fs
              if "vector_storage-e5" in r and f.startswith("chunk_")]
    return path


def zero_keeping_time(path: str, size: int) -> None:
    stat = os.stat(path)
    with open(path, "r+b") as f:
        f.write(b"\0" * size)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_an_intact_shard_is_searched_and_kept_by_the_next_index(indexed):
    results, shard, _ = indexed
    assert top_hit(str(shard)) == "c2"
    assert build(str(shard)) == (False, len(ROWS))                  # same inputs, same bytes: kept
    assert output_records.set_aside_damaged(str(results), dry_run=False) == []


def test_zeroed_vectors_with_their_time_kept_are_refused_by_the_search_then_rebuilt(indexed):
    results, shard, manifest = indexed
    damaged = vector_file(shard)
    zero_keeping_time(damaged, len(ROWS) * 8 * 4)
    with pytest.raises(InputError) as e:
        top_hit(str(shard))
    assert str(e.value) == (f"{damaged}: not what the index wrote (its sha256 differs): the Qdrant shard was "
                            f"changed after the index built it; run again: the index builds it again")
    # the next run, as it starts: the shard and its manifest are moved aside, so the index runs again
    [(path, line)] = output_records.set_aside_damaged(str(results), dry_run=False)
    assert path == str(manifest) and not manifest.exists() and not shard.exists()
    assert line.startswith(f"{damaged}: not what the index wrote") and "the index builds it again; moved to" in line
    assert build(str(shard)) == (True, len(ROWS)) and top_hit(str(shard)) == "c2"


def test_a_vector_file_changed_with_a_new_time_is_found_as_the_run_starts(indexed):
    results, shard, manifest = indexed
    with open(vector_file(shard), "r+b") as f:
        f.write(b"\0" * 32)
    [(path, line)] = output_records.set_aside_damaged(str(results), dry_run=True)          # a dry run moves nothing
    assert path == str(manifest) and shard.exists()
    assert line.endswith(f"(a run moves it to {results}/quarantine/ first)")
    assert output_records.set_aside_damaged(str(results), dry_run=False)[0][0] == str(manifest)
    assert not shard.exists()


def test_a_shard_file_gone_is_named_and_the_index_does_not_keep_the_shard(indexed):
    _, shard, _ = indexed
    os.unlink(shard / "edge_config.json")
    assert shard_problem(str(shard)) == f"{shard}: files missing: edge_config.json"
    assert build(str(shard)) == (True, len(ROWS))                   # built again, not kept


# ---- run files: complete, parseable, one line per question ---------------------------------------

def test_a_run_cut_short_or_with_a_line_repeated_is_never_scored(tmp_path):
    run = write_lines(tmp_path / "e5-T1.jsonl", [{"qid": q, "ids": ["c1"]} for q in ("q1", "q2", "q3")])
    assert read_run(str(run), questions=["q1", "q2", "q3"]) == {q: ["c1"] for q in ("q1", "q2", "q3")}
    lines = run.read_text(encoding="utf-8").splitlines(keepends=True)
    run.write_text("".join(lines[:2]), encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_run(str(run), questions=["q1", "q2", "q3"])
    assert str(e.value) == (f"{run}: no line for 1 question(s) (q3…): the run is incomplete (cut short?); "
                            f"run again: its search writes it again")
    run.write_text(lines[0] + lines[1] + lines[0], encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{run}:3: question q1 again \(first at line 1\)$"):
        read_run(str(run), questions=["q1", "q2"])
    run.write_text(lines[0] + lines[1][:9], encoding="utf-8")       # cut inside a line
    with pytest.raises(InputError, match=rf"^{run}:2: "):
        read_run(str(run), questions=["q1", "q2"])


# ---- a full disk, a read-only folder: one line, nothing half-written ------------------------------

def one_line_exit(func, capsys, log) -> str:
    with pytest.raises(SystemExit) as e:
        run_logged(func, str(log))
    err = capsys.readouterr().err
    assert e.value.code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
    return err.rstrip("\n")


@contextlib.contextmanager
def mounted_tmpfs(where, size: str, read_only: bool = False):
    """A tmpfs at `where` (root with mount only: else the test skips, saying why)."""
    where.mkdir(parents=True, exist_ok=True)
    options = f"size={size}" + (",ro" if read_only else "")
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                                           capture_output=True).returncode != 0:
        pytest.skip("needs root and mount for a tmpfs")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


def test_a_full_disk_is_one_line_naming_the_file_and_leaves_nothing(tmp_path, capsys):
    with mounted_tmpfs(tmp_path / "small", "64k") as small:
        table = small / "docs.jsonl"
        line = one_line_exit(lambda: write_text(table, "x" * 200_000), capsys, tmp_path / "prep.log")
        assert line == f"error: {table}: no space left on the device ({os.strerror(errno.ENOSPC)})"
        assert list(small.iterdir()) == []
        assert (tmp_path / "prep.log").read_text(encoding="utf-8").rstrip("\n") == line


def test_a_full_disk_while_the_index_builds_is_one_line_and_leaves_nothing(tmp_path, capsys):
    with mounted_tmpfs(tmp_path / "small", "64k") as small:
        shard = small / "qdrant" / "v_T1"
        line = one_line_exit(lambda: build(str(shard)), capsys, tmp_path / "index.log")
        assert line.startswith(f"error: {shard}: the Qdrant shard could not be written (") and \
            line.endswith("free some space and run again"), line
        assert list((small / "qdrant").iterdir()) == []                 # nothing half-written


def test_a_slug_list_in_a_read_only_folder_is_one_line_naming_it(tmp_path, capsys):
    folder = tmp_path / "frozen"
    if os.geteuid() == 0:
        cm = mounted_tmpfs(folder, "64k", read_only=True)
    else:
        folder.mkdir()
        folder.chmod(0o555)
        cm = contextlib.nullcontext(folder)
    with cm:
        slugs = folder / "slugs.txt"
        line = one_line_exit(lambda: write_text(slugs, "kafka-lag\n"), capsys, tmp_path / "prep.log")
        assert line.startswith(f"error: {slugs}: ") and ("read-only" in line or "permission denied" in line), line
        assert list(folder.iterdir()) == []
