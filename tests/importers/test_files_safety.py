"""corpus.format files never reads what it should not: a link out of the folder (unless
corpus.follow_links_out), a FIFO or a device, PDF bytes as text, front matter that is not what it
looks like; each such file is one line in prep's log. An empty corpus.path is refused before
anything runs."""
import os
import threading
from pathlib import Path
from types import SimpleNamespace

from conftest import corpus_settings, read_lines
from bad_inputs import Experiment
from test_files_importer import PDF_PAGES, write_pdf

from ctxret.importers import corpus_files, import_corpus, read_corpus
from ctxret.stages import prep

SECRET = "root:x:0:0:the secret outside the corpus"


def files_corpus(path: Path, **extra) -> dict:
    return corpus_settings(path, format="files", language="en", **extra)


def prep_log(corpus: dict, tmp_path: Path, capsys) -> tuple[list[str], list[dict]]:
    """prep's log lines and the documents of docs.jsonl."""
    out = SimpleNamespace(docs_all=str(tmp_path / "docs-all.jsonl"), docs=str(tmp_path / "docs.jsonl"))
    prep.prep(input=None, output=out, params=SimpleNamespace(corpus=corpus, store=str(Path(out.docs).parent / "store")))
    return capsys.readouterr().out.splitlines(), read_lines(out.docs)


def skipped(log: list[str], folder: Path) -> list[str]:
    start = next(i for i, line in enumerate(log) if line.startswith("skipped ") and line.endswith(f" of {folder}:"))
    return [line for line in log[start + 1:] if line.startswith("  ")]


def test_a_link_out_of_the_folder_is_skipped_with_a_line_and_linked_folders_inside_are_read(tmp_path, capsys):
    root, outside = tmp_path / "docs", tmp_path / "elsewhere"
    (root / "real").mkdir(parents=True)
    (root / "sub").mkdir()
    outside.mkdir()
    (root / "intro.md").write_text("# Intro\n\nThe pump starts at dawn.\n", encoding="utf-8")
    (root / "real" / "inner.md").write_text("# Inner\n\nThe valve is cleaned monthly.\n", encoding="utf-8")
    secret = tmp_path / "passwd"
    secret.write_text(SECRET + "\n", encoding="utf-8")
    (outside / "far.md").write_text(f"# Far\n\n{SECRET} in a folder.\n", encoding="utf-8")
    (root / "passwd.md").symlink_to(secret)                 # a file link out
    (root / "shared").symlink_to(outside, target_is_directory=True)     # a folder link out
    (root / "alias").symlink_to(root / "real", target_is_directory=True)  # a folder link inside
    (root / "sub" / "back").symlink_to("..", target_is_directory=True)   # a loop
    log, docs = prep_log(files_corpus(root), tmp_path, capsys)
    top = root.resolve()
    assert skipped(log, root) == [
        f"  passwd.md: a link to {secret.resolve()}, outside the folder; not followed "
        f"(corpus.follow_links_out: true reads it)",
        f"  shared: a link to {outside.resolve()}, outside the folder; not followed "
        f"(corpus.follow_links_out: true reads it)",
        f"  sub/back/: a link to {top}, a folder it sits in; not followed"]
    assert [d["meta"]["id"] for d in docs] == ["alias/inner.md", "intro.md", "real/inner.md"]
    assert SECRET not in (tmp_path / "docs.jsonl").read_text(encoding="utf-8")
    assert SECRET not in (tmp_path / "docs-all.jsonl").read_text(encoding="utf-8")
    assert str(secret) not in corpus_files(files_corpus(root)) and not any(
        "far.md" in f for f in corpus_files(files_corpus(root)))
    # allowed: both links out are read, and are inputs of prep
    allowed = files_corpus(root, follow_links_out=True)
    assert [d["meta"]["id"] for d in read_corpus(allowed)] == ["alias/inner.md", "intro.md", "passwd.md",
                                                               "real/inner.md", "shared/far.md"]
    assert {Path(f).name for f in corpus_files(allowed)} >= {"passwd.md", "far.md"}


def test_a_fifo_is_skipped_at_once_never_waited_on(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "notes.md").write_text("# Notes\n\nSome text.\n", encoding="utf-8")
    os.mkfifo(root / "pipe.md")
    got = {}
    reader = threading.Thread(target=lambda: got.update(read=import_corpus(files_corpus(root))), daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():   # blocked on the FIFO: a writer lets it go before the test fails
        os.close(os.open(root / "pipe.md", os.O_WRONLY | os.O_NONBLOCK))
        raise AssertionError("reading the folder waited on the FIFO pipe.md")
    docs, notes = got["read"]
    assert [d["meta"]["id"] for d in docs] == ["notes.md"]
    assert notes == [f"skipped 1 file of {root}:", "  pipe.md: not a regular file (a FIFO); not read",
                     "read 1 file: markdown 1", "clean-up: nothing removed"]
    assert [Path(f).name for f in corpus_files(files_corpus(root))] == ["notes.md"]


def test_pdf_bytes_under_a_text_suffix_are_read_as_a_pdf(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    write_pdf(root / "report.html", PDF_PAGES, title="Pump report")
    write_pdf(root / "notes.md", PDF_PAGES[:1])
    docs = {d["meta"]["id"]: d for d in read_corpus(files_corpus(root))}
    assert docs["report.html"]["title"] == "Pump report"
    assert docs["report.html"]["body"] == f"## Page 1\n\n{PDF_PAGES[0]}\n\n## Page 2\n\n{PDF_PAGES[1]}"
    assert docs["notes.md"]["body"] == f"## Page 1\n\n{PDF_PAGES[0]}"
    assert not any("%PDF" in d["body"] or "endobj" in d["body"] for d in docs.values())


def test_malformed_front_matter_is_one_line_never_body_text_nor_a_title(tmp_path, capsys):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "good.md").write_text("---\ntitle: Good\n---\nText.\n", encoding="utf-8")
    (root / "unclosed.md").write_text("---\ntitle: Draft\nowner: ops\n\nThe body the block swallowed.\n",
                                      encoding="utf-8")
    (root / "listed.md").write_text("---\ntitle: [a, b]\n---\n# Heading\n\nText.\n", encoding="utf-8")
    (root / "mapped.md").write_text("---\ntitle: {x: 1}\n---\nText.\n", encoding="utf-8")
    log, docs = prep_log(files_corpus(root), tmp_path, capsys)
    assert skipped(log, root) == [
        "  listed.md: front matter title is a list, not text; quote it (title: \"...\")",
        "  mapped.md: front matter title is a mapping, not text; quote it (title: \"...\")",
        "  unclosed.md: front matter opened by --- on line 1 is never closed (no --- line after it)"]
    assert [(d["meta"]["id"], d["title"], d["body"]) for d in docs] == [("good.md", "Good", "Text.")]


def test_an_empty_corpus_path_is_refused_in_one_line_before_anything_runs(tmp_path):
    x = Experiment(tmp_path)
    x.set("corpus.path", "")
    proc = x.run("-n")
    line = next(i for i, text in enumerate(x.config_path.read_text().splitlines(), 1) if "path: ''" in text)
    errors = [text for text in proc.stderr.splitlines() if text.startswith("error:")]
    assert proc.returncode == 1 and "Traceback" not in proc.stdout + proc.stderr, proc.stderr[-3000:]
    assert errors == [f"error: {x.config_path}:{line}: corpus.path: is empty: name the corpus's folder or file"]
    assert not (tmp_path / "results").exists()
