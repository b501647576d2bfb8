"""SIGTERM or SIGINT to the driver (`python -m ctxret`) at the moment Snakemake's scheduler holds
its lock (the question check just finished: its jobs' bookkeeping) ends the run within seconds
and frees results/ for the next run. Before the driver supervised Snakemake, a SIGTERM there hung
it for good (3 of 4 tries), the run lock held. Waits follow the run's own log, never a clock."""
import os
import signal
import subprocess
import sys
import threading

import pytest
from workflow import ROOT, mini_config, own_workdir

from ctxret.runtime import run_lock

BOUND_S = 120          # generous: the driver kills a Snakemake still alive 30 s after the signal
STARTED_S = 600        # the run reaching the question check, on a busy machine


def driver(tmp, *args):
    config = mini_config(tmp, models={}, pairs={"primary": [{"a": "bm25:T0", "b": "bm25:T1"}], "resamples": 200})
    env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"}
    return [sys.executable, "-m", "ctxret", "--snakefile", str(ROOT / "Snakefile"), "--cores", "1", *args,
            f"--configfile={config}"], env, own_workdir(tmp)


def stopped_at_the_question_check(tmp, signals) -> str:
    """The driver's output, after `signals` sent one after the other as the question check ends;
    asserts it ended within BOUND_S and left results/ free: no lock, the next run starts and ends 0."""
    cmd, env, cwd = driver(tmp)
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, checked, stopping = [], threading.Event(), threading.Event()

    def read():
        for line in proc.stdout:
            lines.append(line)
            if "(Rule: qcheck)" in line:   # "Finished jobid: N (Rule: qcheck)", logged under the lock
                checked.set()
            if "stopping the run" in line:
                stopping.set()
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert checked.wait(STARTED_S), "".join(lines[-30:])
    proc.send_signal(signals[0])
    if signals[1:]:   # once the driver has passed the first one on (signals of one kind do not queue)
        assert stopping.wait(BOUND_S), "".join(lines[-30:])
        proc.send_signal(signals[1])
    try:
        status = proc.wait(BOUND_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"the driver still runs {BOUND_S} s after {signals[0].name}:\n{''.join(lines[-30:])}")
    reader.join(BOUND_S)
    out = "".join(lines)
    assert status == 128 + signals[0]
    assert f"ctxret: {signals[0].name}: stopping the run" in out
    assert "Traceback" not in out
    assert not run_lock.held(str(tmp / "results"))
    assert not list((cwd / ".snakemake" / "locks").glob("*"))
    again = subprocess.run(driver(tmp, str(tmp / "results" / "gold.json"))[0], cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=STARTED_S, check=False)
    assert again.returncode == 0, again.stderr[-3000:]
    return out


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_as_the_question_check_ends_stops_the_run_and_frees_results(tmp_path, signum):
    assert "ctxret: killed Snakemake" not in stopped_at_the_question_check(tmp_path, [signum])


def test_a_second_signal_as_the_run_stops_leaves_results_free_too(tmp_path):
    """The second signal kills Snakemake and its jobs at once when it is still alive, and removes the
    lock it leaves (whether it still was alive when the signal came depends on the machine's speed)."""
    out = stopped_at_the_question_check(tmp_path, [signal.SIGTERM, signal.SIGTERM])
    killed = [line for line in out.splitlines() if line.startswith("ctxret: killed")]
    assert killed in ([], [("ctxret: killed Snakemake and its jobs (at a second signal) and removed its lock; the "
                            "same command goes on from there")])
