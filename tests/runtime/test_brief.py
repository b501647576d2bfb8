"""`python -m ctxret --brief` (what `make run` runs): a short terminal that still shows every error,
whether the workflow stops as it is read or a job fails."""
import os
import subprocess
import sys

from conftest import read_lines, write_lines
from workflow import ROOT, mini_config, own_workdir


def brief(tmp, edit) -> subprocess.CompletedProcess:
    """The mini experiment (BM25 only) with its first H question's passage `edit`, run brief."""
    config = mini_config(tmp, models={}, pairs={"primary": [{"a": "bm25:T0", "b": "bm25:T1"}], "resamples": 200})
    path = tmp / "corpus" / "questions" / "questions-h.jsonl"
    rows = read_lines(path)
    rows[0]["gold_passage"] = edit
    write_lines(path, rows)
    env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run([sys.executable, "-m", "ctxret", "--brief", "--snakefile", str(ROOT / "Snakefile"),
                           "--cores", "1", f"--configfile={config}"], cwd=own_workdir(tmp), env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_passage_not_in_its_document_is_the_one_line_before_any_job(tmp_path):
    proc = brief(tmp_path, "컨슈머는 그룹에서 쫒겨나고")
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1 and proc.stderr == "" and len(lines) <= 4, proc.stdout
    assert lines[-1].startswith(f"error: {tmp_path}/corpus/questions/questions-h.jsonl:1: h01: passage missing: "
                                f"not in kafka-lag, even with spaces"), proc.stdout


def test_a_failing_job_shows_its_error_and_snakemakes_block(tmp_path):
    """A passage across a chunk boundary stops qcheck, a job: its error line and Snakemake's error
    block are shown, the other jobs' output is not."""
    proc = brief(tmp_path, "주문 처리도 늦어진다.\n\n## 폴링 간격")
    out = proc.stdout
    assert proc.returncode == 1 and "Traceback" not in out, out
    assert "h01: passage across a chunk boundary" in out and "Error in rule qcheck:" in out, out
    assert "Exiting because a job execution failed" in out and "Complete log(s):" in out, out
    assert "chunker paragraph:" not in out and "Select jobs to execute" not in out, out   # a job's own lines
    assert len(out.splitlines()) <= 40, out
