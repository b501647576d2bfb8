"""Shared test helpers (import them: `from conftest import ...`) and the fake-claude fixture."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from ctxret.settings import complete
from ctxret.stages import prep

FAKE_CLAUDE = Path(__file__).parent / "fakes" / "fake_claude"
# The files that take longest, longest first: `make test` hands whole files to its workers in
# collection order, so these start first and no long file is left to run alone at the end.
LONGEST_FIRST = ("test_bad_settings.py", "test_bad_corpora.py", "test_slurm.py", "test_rerun.py", "test_workflow.py", "test_experiments.py",
                 "test_report.py", "test_sharing.py", "test_readme_quickstart.py", "test_chunkers.py",
                 "test_search_depth.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture
def fake_claude(tmp_path, monkeypatch):
    """Settings for the claude-cli backend on the fake CLI, and a reader of its call log."""
    log = tmp_path / "claude-calls.jsonl"
    monkeypatch.setenv("FAKE_CLAUDE_LOG", str(log))
    monkeypatch.setenv("FAKE_CLAUDE_STATE", str(tmp_path / "claude-state"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-should-not-leak")
    monkeypatch.delenv("FAKE_CLAUDE_FAIL", raising=False)
    # `#!/usr/bin/env python3` finds this interpreter first (a pyenv shim costs ~0.3 s a call)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    llm = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE), "model": "opus", "effort": "high", "timeout_s": 20}
    llm = settings(contexts={"llm": llm})["contexts"]["llm"]   # completed, as the workflow passes it

    def calls():
        return [json.loads(l) for l in log.read_text().splitlines()] if log.exists() else []

    return llm, calls


def write_article(articles: Path, slug: str, body: str, *, title: str | None = None,
                  tags: list[str] = (), name: str | None = None) -> Path:
    """A manifest `<name>.json` and its body `<name>.mdx`; returns the manifest path."""
    name = name or slug
    articles.mkdir(parents=True, exist_ok=True)
    (articles / f"{name}.mdx").write_text(body, encoding="utf-8")
    manifest = articles / f"{name}.json"
    manifest.write_text(json.dumps({"slug": slug, "title": title or f"{slug} 제목", "tags": list(tags),
                                    "body": f"{name}.mdx"}, ensure_ascii=False), encoding="utf-8")
    return manifest


def settings(**sections) -> dict:
    """A configuration with the schema's defaults filled in, as the workflow completes it (a
    corpus and a question set are required; placeholders stand in when a test needs neither)."""
    config = {"corpus": {"path": "unused"}, "questions": {"sets": {"Q": "unused.jsonl"}}, **sections}
    return complete(config)


def backend_for(llm: dict):
    """The backend of contexts.llm `llm` as the workflow builds it: settings checked by the
    schema, defaults filled in (the free heuristic X1 takes its settings as they are)."""
    from ctxret.contexts.llm import FREE_BACKEND, make_backend
    return make_backend(llm if llm.get("backend") == FREE_BACKEND else settings(contexts={"llm": llm})["contexts"]["llm"])


def corpus_settings(path, **extra) -> dict:
    """corpus: settings, defaults filled in, as rule prep passes them."""
    return settings(corpus={"path": str(path), **extra})["corpus"]


def question_sets(paths: dict) -> dict:
    """questions.sets: settings of JSONL sets ({name: path}), defaults filled in."""
    return settings(questions={"sets": {name: str(path) for name, path in paths.items()}})["questions"]["sets"]


def prep_io(articles: Path, out: Path, exclude_tags=("RAG",)):
    """(input, output, params) for prep.run, as the Snakemake rule passes them."""
    input = SimpleNamespace()
    output = SimpleNamespace(docs_all=str(out / "docs-all.jsonl"), docs=str(out / "docs.jsonl"))
    params = SimpleNamespace(corpus=corpus_settings(articles, slugs=str(out / "slugs.txt"),
                                                    exclude_tags=list(exclude_tags)), store=str(out / "store"))
    return input, output, params


def run_prep(articles: Path, out: Path, exclude_tags=("RAG",)):
    input, output, params = prep_io(articles, out, exclude_tags)
    prep.prep(input=input, output=output, params=params)
    return output, params


def write_lines(path: Path, rows) -> Path:
    """A JSONL file: dicts are dumped, strings written as they are (for malformed lines)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n"
                            for r in rows), encoding="utf-8")
    return path


def read_lines(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line]


def tmp_leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.rglob("*.tmp"))
