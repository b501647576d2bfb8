"""The mini-corpus workflow on a real single-node SLURM cluster through profiles/slurm.

Needs root and apt-get (CI has both): tests/slurm/cluster.sh installs and starts SLURM with
accounting on this machine; skipped otherwise (or with CTXRET_SKIP_SLURM=1). One A1 job is
cancelled with scancel while it waits for its second LLM answer: the run fails naming the logs,
the rerun resumes (finished jobs and the finished chunk are not repeated), and its outputs match a
local run of the same config, started at the same time. Each document is its own embedding shard
(`embed.shard_texts: 1`, so each question is a shard too): shard jobs run at once, on one CPU each.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from conftest import FAKE_CLAUDE
from workflow import ROOT, mini_config, own_workdir, snakemake

CLUSTER = ROOT / "tests" / "slurm" / "cluster.sh"
# every job pays a Snakemake start-up (~4 CPU-s) on a 2-core node: poll each second, not each 10
PROFILE = ("--profile", str(ROOT / "profiles" / "slurm"), "--seconds-between-status-checks", "1", "--resources", "llm_workers=1")
# results that do not depend on when or where a job ran; left out: ctx/*/docs/*.jsonl, ctx/A1/*.json
# and ctx/*/stats.json (start/end times, session ids), emb/*.npy (floating point may differ with
# the thread count), index/ (Qdrant files), manifest.tsv (hashes the timestamped files), logs/
DETERMINISTIC = ["docs.jsonl", "chunks.jsonl", "var-*.jsonl", "gold.json", "runs/*.jsonl",
                 "score.json", "pairs.json"]


def why_not_slurm():
    if os.environ.get("CTXRET_SKIP_SLURM"):
        return "CTXRET_SKIP_SLURM is set"
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return f"needs root and apt-get: euid {os.geteuid()}, apt-get {shutil.which('apt-get')}"
    conf = Path("/etc/slurm/slurm.conf")
    if conf.exists() and "tests/slurm/cluster.sh" not in conf.read_text(errors="replace"):
        return "a real SLURM configuration is installed (/etc/slurm/slurm.conf); not touching it"
    return None


def cluster(*args, timeout=900):
    return subprocess.run([str(CLUSTER), *args], capture_output=True, text=True, timeout=timeout)


def slurm_up(request):
    """Bring the cluster up; take it down after the module only if it was not running before."""
    was_up = cluster("status", timeout=60).returncode == 0
    up = cluster("up")
    if up.returncode != 0:
        pytest.fail(f"tests/slurm/cluster.sh up failed:\n{up.stderr[-5000:]}")
    if not was_up:
        request.addfinalizer(lambda: cluster("down", timeout=300))


class Background(threading.Thread):
    """func(*args, **kwargs) in a thread; join() returns its result (or raises its exception)."""

    def __init__(self, func, *args, **kwargs):
        super().__init__(daemon=True)
        self.call = lambda: func(*args, **kwargs)
        self.box = {}
        self.start()

    def run(self):
        try:
            self.box["result"] = self.call()
        except BaseException as e:  # re-raised by join
            self.box["error"] = e

    def join(self, timeout=3600):   # an upper bound for a stuck run, not a pace: a busy machine is slower
        super().join(timeout)
        assert not self.is_alive(), "snakemake did not finish in time"
        if "error" in self.box:
            raise self.box["error"]
        return self.box["result"]


def wait_for(what, predicate, timeout=180, every=0.2, progress=None, cap=3600):
    """predicate()'s first true value, asked every `every` s for `timeout` s; with `progress` (a
    callable whose value changes while the run works: files_growing) for as long as it changed in
    the last `timeout` s, up to `cap` s in all: a busy machine slows a run, a stuck one stops."""
    start = changed = time.monotonic()
    seen = progress() if progress else None
    while True:
        value = predicate()
        if value:
            return value
        now = time.monotonic()
        if progress and (current := progress()) != seen:
            seen, changed = current, now
        if now - start >= cap:
            raise AssertionError(f"timed out after {cap}s waiting for {what}, though the run was still progressing")
        if now - changed >= timeout:
            raise AssertionError(f"timed out waiting for {what}: "
                                 + (f"no progress in the last {timeout}s" if progress else f"after {timeout}s"))
        time.sleep(every)


def files_growing(*paths):
    """A progress source: the (path, size) of each of `paths` and of each file under them, which
    change as a run's jobs start, log and finish."""
    def snapshot():
        found = set()
        for given in map(Path, paths):
            try:
                for path in [given, *(given.rglob("*") if given.is_dir() else [])]:
                    found.add((str(path), path.stat().st_size if path.is_file() else -1))
            except OSError:   # not there yet, or removed meanwhile (Snakemake's temporary files)
                found.add((str(given), None))
        return frozenset(found)
    return snapshot


def running_a1_job():
    """(SLURM id, job script) of the running contexts job for A1 (the script names the wildcards)."""
    out = subprocess.run(["squeue", "-h", "-t", "RUNNING", "-o", "%i|%j|%o"],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        jobid, name, script = line.split("|", 2)
        text = Path(script).read_text(errors="replace") if Path(script).is_file() else ""
        if name.startswith("smk-contexts-") and "cvar=A1" in text:
            return jobid, text
    return None


def external_ids(proc):
    return re.findall(r"with external jobid '(\d+)'", proc.stdout + proc.stderr)


def job_stats(proc):
    """{rule: count} from Snakemake's 'Job stats' table."""
    text = proc.stdout + proc.stderr
    table = text.split("Job stats:", 1)[1].split("\n\n", 1)[0]
    return {m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.M) if m[1] != "total"}


def local_jobs(proc):
    """Rules the driver ran itself (`localrule X:`), e.g. the target `all`."""
    return re.findall(r"^localrule (\w+):", proc.stdout + proc.stderr, re.M)


def sacct(ids, fields="JobID,JobName,State"):
    out = subprocess.run(["sacct", "-n", "-X", "-P", "-o", fields, "-j", ",".join(ids)],
                         capture_output=True, text=True, check=True).stdout
    return [line.split("|") for line in out.splitlines() if line]


def sha256s(results):
    files = sorted(p for pattern in DETERMINISTIC for p in results.glob(pattern))
    return {str(p.relative_to(results)): hashlib.sha256(content(p)).hexdigest() for p in files}


def content(path) -> bytes:
    """The file's bytes; pairs.json without its kept-to-the-plan block, which names the time its
    run preregistered (each run preregisters on its own)."""
    if path.name != "pairs.json":
        return path.read_bytes()
    pairs = json.loads(path.read_text(encoding="utf-8"))
    assert pairs.pop("kept_to_plan")["kept"]
    return json.dumps(pairs, sort_keys=True).encode("utf-8")


@pytest.fixture(scope="module")
def runs(request, tmp_path_factory):
    reason = why_not_slurm()
    if reason:
        pytest.skip(reason)
    t0 = time.monotonic()
    tmp = tmp_path_factory.mktemp("slurm")
    # T1 and A1 only (no T0, no X1): 24 jobs instead of 40, for time
    llm = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE), "model": "opus", "effort": "high"}
    config = mini_config(tmp, variants=["T1"], contexts={"free": False, "llm": llm})
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings["models"]["e5"]["variants"] = ["T1", "A1"]
    settings["embed"] = {"shard_texts": 1}
    config.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
    env = {"FAKE_CLAUDE_LOG": str(tmp / "claude-calls.jsonl"), "FAKE_CLAUDE_STATE": str(tmp / "claude-state"),
           "CTXRET_SLURM_LOGS": str(tmp / "slurm-logs")}
    # the reference: the same config run locally, meanwhile (same corpus, own results and store)
    local = {**settings, "corpus": dict(settings["corpus"])}
    local.update(results=str(tmp / "local" / "results"), store=str(tmp / "local" / "store"))
    local["corpus"]["slugs"] = str(tmp / "local" / "slugs.txt")
    local_config = tmp / "config-local.yaml"
    local_config.write_text(yaml.safe_dump(local, allow_unicode=True), encoding="utf-8")
    local_env = {"FAKE_CLAUDE_LOG": str(tmp / "local" / "claude-calls.jsonl"),
                 "FAKE_CLAUDE_STATE": str(tmp / "local" / "claude-state")}
    local_run = Background(snakemake, local_config, env=local_env, workdir=own_workdir(tmp / "local"))

    workdir = own_workdir(tmp)
    slurm_up(request)
    t_up = time.monotonic()
    # run 1: the second LLM call hangs; its job is cancelled with scancel
    hang = {**env, "FAKE_CLAUDE_FAIL": "ok:1,sleep:1", "FAKE_CLAUDE_SLEEP_S": "120"}
    first_run = Background(snakemake, config, *PROFILE, check=False, env=hang)
    log = tmp / "claude-calls.jsonl"

    def hanging():
        if not first_run.is_alive():
            proc = first_run.join()
            raise AssertionError(f"the run ended before the LLM call hung:\n{proc.stderr[-5000:]}")
        return log.exists() and len(log.read_text().splitlines()) >= 2
    # as long as the run makes progress (the driver's log, the jobs' logs and outputs, the LLM calls)
    wait_for("the hanging LLM call", hanging, every=0.5, progress=files_growing(
        workdir / ".snakemake" / "log", tmp / "results" / "logs", tmp / "slurm-logs", log))
    # the job is running (its LLM call hangs): squeue shows it as soon as slurmctld answers, however busy
    cancelled, script = wait_for("the A1 job in squeue", running_a1_job, timeout=300)
    subprocess.run(["scancel", cancelled], check=True)
    first = first_run.join()
    # run 2: the same command resumes
    second = snakemake(config, *PROFILE, check=False, env=env)
    local_run.join()
    timing = {"cluster up": t_up - t0, "both SLURM runs": time.monotonic() - t_up,
              "total": time.monotonic() - t0}
    print(f"timing (s): {json.dumps({k: round(v) for k, v in timing.items()})}")
    return tmp, first, second, cancelled, script


def test_jobs_run_the_venvs_python(runs):
    """A submitted job runs `<the driver's interpreter> -m snakemake`: this venv's python."""
    script = runs[4]
    found = re.search(r"(\S+/python[\d.]*) -m snakemake ", script)
    assert found, script
    assert os.path.realpath(Path(found[1]).parent) == os.path.realpath(Path(sys.executable).parent), script


def test_a_cancelled_job_fails_the_run_naming_its_logs(runs):
    tmp, first, _, cancelled, _ = runs
    out = first.stdout + first.stderr
    report = out[out.find("slurm-status.sh:"):]
    print("the failed run:\n" + report[:report.find("external_jobid")] + f"external_jobid: {cancelled}")
    assert first.returncode != 0
    assert "Error in rule contexts" in out
    assert f"external_jobid: {cancelled}" in out
    # the rule's own log and the SLURM job's output file
    assert re.search(rf"log: {re.escape(str(tmp / 'results' / 'logs' / 'ctx'))}/A1-[\w-]+\.log", out), out[-3000:]
    assert f"SLURM job {cancelled} (smk-contexts-" in out and "ended CANCELLED" in out
    assert re.search(rf"log: {re.escape(str(tmp / 'slurm-logs'))}/contexts-\d+-{cancelled}\.out", out)


def test_the_rerun_resumes(runs):
    tmp, first, second = runs[:3]
    assert second.returncode == 0, (second.stdout[-3000:], second.stderr[-5000:])
    done_before = set(job_stats(first)) - set(job_stats(second))
    assert {"prep", "chunks", "qcheck"} <= done_before, job_stats(second)
    # only the interrupted call is asked again: the finished chunk of that document came from the store
    chunks = (tmp / "results" / "chunks.jsonl").read_text().splitlines()
    calls = (tmp / "claude-calls.jsonl").read_text().splitlines()
    assert len(calls) == len(chunks) + 1
    logs = [p.read_text() for p in (tmp / "results" / "logs" / "ctx").glob("A1-*.log")]
    assert any("from store 1" in text for text in logs), logs


def test_every_job_ran_as_a_slurm_job(runs):
    _, first, second, cancelled = runs[:4]
    ids = external_ids(first) + external_ids(second)

    def settled():
        rows = sacct(ids)
        final = [r for r in rows if r[2] not in ("PENDING", "RUNNING", "COMPLETING")]
        return rows if len(final) == len(ids) else None
    rows = wait_for("sacct records of every job", settled, timeout=600, every=1)   # slurmdbd lags under load
    print("sacct -n -X -P -o JobID,JobName,State:\n" + "\n".join("|".join(r) for r in rows))
    assert all(name.startswith("smk-") for _, name, _ in rows)
    state = {jobid: s.split()[0] for jobid, _, s in rows}
    assert state[cancelled] == "CANCELLED"
    assert all(state[i] == "COMPLETED" for i in external_ids(second))
    # every rule of the workflow but local ones (the target `all`) has a COMPLETED SLURM job
    completed_rules = {re.match(r"smk-(\w+)-\d+$", name)[1] for jobid, name, _ in rows
                       if state[jobid] == "COMPLETED"}
    assert completed_rules == set(job_stats(first)) - set(local_jobs(first) + local_jobs(second))
    assert len(external_ids(second)) == sum(job_stats(second).values()) - len(local_jobs(second))


def test_the_llm_worker_cap_held_across_submissions(runs):
    """--resources llm_workers=1: no two documents' A1 calls overlap in time. Compared call by
    call: a document whose job was cancelled and resumed spans both runs, and the other
    document's job may rightly run in between."""
    tmp = runs[0]
    calls = {}
    for path in (tmp / "results" / "ctx" / "A1" / "docs").glob("*.jsonl"):
        calls[path.stem] = [(r["started"], r["ended"]) for r in map(json.loads, path.read_text().splitlines())]
    assert len(calls) == 2
    a, b = calls.values()
    overlapping = [(x, y) for x in a for y in b if x[0] < y[1] and y[0] < x[1]]
    assert not overlapping, overlapping


def test_outputs_equal_a_local_run(runs):
    tmp = runs[0]
    on_slurm, local = sha256s(tmp / "results"), sha256s(tmp / "local" / "results")
    print(f"same sha256 on SLURM and locally: {' '.join(sorted(on_slurm))}")
    assert len(on_slurm) >= 10 and "score.json" in on_slurm and "pairs.json" in on_slurm, sorted(on_slurm)
    assert on_slurm == local


def test_shard_jobs_ran_at_once_with_a_local_runs_vectors(runs):
    """A variant's embedding shards are separate SLURM jobs that the 2-CPU node runs together,
    and the vectors they make are bit for bit those of the local run."""
    tmp, first, second = runs[:3]
    rows = sacct(external_ids(first) + external_ids(second), "JobID,JobName,State,Start,End")
    shards = [(start, end) for _, name, state, start, end in rows
              if name.startswith("smk-embed_shard-") and state == "COMPLETED"]
    print("embed_shard jobs (start, end):", shards)
    assert len(shards) == 4, rows          # T1 and A1, one shard per document
    # every embedding shard job, the questions' too (one per question here), shares the 2 CPUs
    shards += [(start, end) for _, name, state, start, end in rows
               if name.startswith("smk-embed_question_shard-") and state == "COMPLETED"]
    together = [(a, b) for i, a in enumerate(shards) for b in shards[i + 1:] if a[0] < b[1] and b[0] < a[1]]
    assert together, shards
    vectors = sorted(p.name for p in (tmp / "results" / "emb").glob("*.npy"))
    assert vectors == ["A1-e5.npy", "T1-e5.npy", "q-e5.npy"], vectors
    for name in vectors:
        assert (tmp / "results" / "emb" / name).read_bytes() == (tmp / "local" / "results" / "emb" / name).read_bytes()


def test_a_wait_lasts_while_the_run_makes_progress_and_stops_once_it_stalls(tmp_path):
    """wait_for against a fake run, a job log written a line each 0.05 s for 2 s (no cluster
    needed): its budget counts from the last change, so a wait far longer than the budget succeeds
    while the log grows, and a stalled or endless run still ends the wait."""
    job_log = tmp_path / "logs" / "job.log"
    job_log.parent.mkdir()

    def run(lines=40):
        for i in range(lines):
            with open(job_log, "a") as f:
                f.write(f"step {i}\n")
            time.sleep(0.05)

    def done():
        return job_log.exists() and len(job_log.read_text().splitlines()) >= 40
    growing = files_growing(tmp_path / "logs")
    writer = threading.Thread(target=run)
    writer.start()
    with pytest.raises(AssertionError, match=r"timed out waiting for the job: after 0.5s"):
        wait_for("the job", done, timeout=0.5, every=0.05)             # a fixed budget: too short
    started = time.monotonic()
    assert wait_for("the job", done, timeout=0.5, every=0.05, progress=growing)
    assert time.monotonic() - started > 0.5                           # longer than the budget
    writer.join()
    started = time.monotonic()
    with pytest.raises(AssertionError, match=r"timed out waiting for more: no progress in the last 0.5s"):
        wait_for("more", lambda: False, timeout=0.5, every=0.05, progress=growing)
    assert time.monotonic() - started < 5
    endless = threading.Thread(target=run)
    endless.start()
    with pytest.raises(AssertionError, match=r"timed out after 0.5s waiting for more, though the run was still"):
        wait_for("more", lambda: False, timeout=0.5, every=0.05, progress=growing, cap=0.5)
    endless.join()
