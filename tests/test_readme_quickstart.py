"""The README's quick start, run exactly as printed, in a fresh copy of the checkout: a newcomer's
folder of English markdown files and a questions file reach a verdict page, no manifest written,
no language stated. Every other fenced block of the README is marked as run here, run by CI or
illustrative."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"(?P<mark><!-- (?P<kind>[^>]*?) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)
WORKFLOW = ("Snakefile", "Makefile", "rules", "scripts", "config", "envs", "report", "profiles", "requirements.txt",
            "constraints.txt", "pyproject.toml")


def blocks() -> list[dict]:
    return [m.groupdict() for m in FENCE.finditer(README)]


def test_every_fenced_block_of_the_readme_says_how_it_is_checked():
    kinds = [b["kind"] for b in blocks()]
    assert kinds and all(k in ("quickstart", "ci: make test", "illustrative") for k in kinds), kinds
    assert kinds.count("quickstart") == 1


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 250


def test_the_quick_start_reaches_a_verdict_page_as_printed(tmp_path):
    checkout = tmp_path / "ctxret"
    checkout.mkdir()
    for name in WORKFLOW:   # copy2 keeps the times, so `make` finds its set-up up to date
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
        copy(ROOT / name, checkout / name, **({"ignore": shutil.ignore_patterns("__pycache__")}
                                             if (ROOT / name).is_dir() else {}))
    (checkout / ".venv").symlink_to(ROOT / ".venv")
    (quick,) = [b["body"] for b in blocks() if b["kind"] == "quickstart"]
    # as a user's shell has it: not inside pytest, nor inside `make test` (whose MAKELEVEL would make
    # the quick start's make print "Entering/Leaving directory" around its output)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SNAKEMAKE", "PYTEST")) and k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", quick], cwd=checkout, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = checkout / "results" / "my"
    summary = (results / "report" / "summary.html").read_text(encoding="utf-8")
    pairs = (results / "pairs.md").read_text(encoding="utf-8")
    plan = (results / "plan.json").read_text(encoding="utf-8")
    assert "English" in summary and "Korean" not in summary
    assert '"english"' in plan     # the BM25 analyser the language found
    assert "verdict" in pairs.lower()
    assert (results / "report.html").stat().st_size > 10_000
    # a short terminal: the language found, that a preregistration is written, then the verdicts last
    lines = (proc.stdout + proc.stderr).splitlines()
    assert len(lines) <= 60, "\n".join(lines)
    assert any(line.startswith("corpus.language: en (auto") for line in proc.stdout.splitlines())
    assert ("no preregistration yet (results/my/preregistration.md is not there): this run writes one from the "
            "questions and settings as they are now" in proc.stdout)
    answers = json.loads((results / "pairs.json").read_text(encoding="utf-8"))["answers"]
    run = [line for line in proc.stdout.split("\n.venv/bin/python -m ctxret.report --configfile=")[0].splitlines()
           if line.strip()]   # make run's, up to make report's command
    assert run[-len(answers):] == answers and len(answers) == 2
    assert run[-len(answers) - 1] == ("verdict: results/my/pairs.md; scores: results/my/score.md; the page: "
                                      "make report CONFIG=my/experiment.yaml")
