"""corpus.format files: a folder of a team's own markdown, text, HTML and PDF files read as
documents (ids their relative paths, titles, tags, `## ` sections, PDF pages), the files that
cannot be documents skipped with a log line each, and the mini workflow run on such a folder."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import corpus_settings, read_lines, write_lines
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from test_experiments import BM25_ONLY, write_config
from workflow import snakemake

from ctxret.errors import InputError
from ctxret.importers import corpus_files, read_corpus
from ctxret.stages import pairs, prep
from ctxret.text.documents import units_of

FRONT = """---
title: Setting up the pump
tags: [ops, pump]
---
# Setting up the pump

Unpack the pump and place it level.

## Wiring

Connect the red wire first.

### Grounding

The ground wire is green.

```bash
# a shell comment, not a heading
make install
```
"""
PLAIN = "# Plain notes\n\nSome text here.\n\n## Later\n\nMore text.\n"
PAGE = """<!doctype html><html><head><title>Valve care</title><style>p {color: red}</style>
<script>var noise = "SCRIPT NOISE";</script></head>
<body><nav><a href="/">Home</a> NAV NOISE</nav><header><h1>SITE HEADER</h1></header>
<main><h2>Cleaning</h2><p>Clean the <b>valve</b> every month.</p><noscript>NOSCRIPT NOISE</noscript>
<aside>ASIDE NOISE</aside><h3>Tools</h3><ul><li>A soft brush</li><li>Warm water</li></ul></main>
<footer>FOOTER NOISE</footer></body></html>"""
PDF_PAGES = ["The pump starts at dawn. Check the valve first.", "The filter is changed every spring."]


def write_pdf(path: Path, pages: list[str], title: str | None = None) -> None:
    """A PDF with one page per text (matplotlib writes the text as a text layer); no text: a
    page with a drawing only, like a scan without OCR."""
    with PdfPages(path, metadata={"Title": title} if title else None) as pdf:
        for text in pages or [""]:
            fig = Figure(figsize=(6, 4))
            if text:
                fig.text(0.05, 0.5, text)
            else:
                fig.add_artist(Rectangle((0.2, 0.2), 0.5, 0.5, transform=fig.transFigure))
            pdf.savefig(fig)


@pytest.fixture
def folder(tmp_path) -> Path:
    """A mixed folder: four documents, six files that are not ones, and hidden files."""
    root = tmp_path / "docs"
    (root / "guides").mkdir(parents=True)
    (root / "guides" / "setup.md").write_text(FRONT, encoding="utf-8")
    (root / "notes.md").write_text(PLAIN, encoding="utf-8")
    (root / "valve.html").write_text(PAGE, encoding="utf-8")
    write_pdf(root / "manual.pdf", PDF_PAGES, title="Pump manual")
    write_pdf(root / "scan.pdf", [])
    (root / "empty.md").write_text("", encoding="utf-8")
    (root / "data.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (root / "latin.txt").write_bytes("caf\u00e9 au lait\n".encode("latin-1"))
    (root / "photo.png").write_bytes(b"\x89PNG")
    (root / "plan {draft}.md").write_text("# Draft\n\nA draft.\n", encoding="utf-8")
    (root / ".draft.md").write_text("# Hidden draft\n\ntext\n", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "notes.md").write_text("# Hidden folder\n\ntext\n", encoding="utf-8")
    return root


def files_corpus(path: Path, **extra) -> dict:
    return corpus_settings(path, format="files", language="en", **extra)


def sections(doc: dict) -> list[str]:
    return [u["section"] for u in units_of(doc)]


def test_every_kind_of_file_becomes_a_document_named_by_its_relative_path(folder):
    docs = read_corpus(files_corpus(folder))
    by_id = {d["meta"]["id"]: d for d in docs}
    assert list(by_id) == ["guides/setup.md", "manual.pdf", "notes.md", "valve.html"]   # sorted by path
    assert [d["slug"] for d in docs] == ["guides_setup.md", "manual.pdf", "notes.md", "valve.html"]
    setup, manual, notes, valve = docs
    # markdown with front matter: its title and tags; the heading repeating the title leaves the body;
    # a `###` heading is a section named under its `##`; a `#` line inside a code fence stays text
    assert (setup["title"], setup["tags"]) == ("Setting up the pump", ["ops", "pump"])
    assert sections(setup) == ["", "Wiring", "Wiring / Grounding"]
    assert not setup["body"].startswith("#") and "# a shell comment, not a heading" in setup["body"]
    # markdown without front matter: the first `# ` heading is the title
    assert (notes["title"], notes["tags"], sections(notes)) == ("Plain notes", [], ["", "Later"])
    assert notes["body"] == "Some text here.\n\n## Later\n\nMore text."
    # HTML: <title>, the text of <main> only, headings as sections
    assert valve["title"] == "Valve care"
    assert sections(valve) == ["Cleaning", "Cleaning / Tools"]
    assert "Clean the valve every month." in valve["body"] and "A soft brush" in valve["body"]
    assert "NOISE" not in valve["body"] and "SITE HEADER" not in valve["body"] and "color" not in valve["body"]
    # PDF: the metadata title, each page a section of its own
    assert manual["title"] == "Pump manual"
    assert sections(manual) == ["Page 1", "Page 2"]
    assert [manual["body"][u["start"]:u["end"]].split("\n\n", 1)[1] for u in units_of(manual)] == PDF_PAGES


def test_titles_fall_back_to_the_first_heading_and_then_the_file_name(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "untitled.md").write_text("Just text.\n\n## Part\n\nMore.\n", encoding="utf-8")
    (root / "readme.txt").write_text("Plain text notes.\n", encoding="utf-8")
    (root / "bare.html").write_text("<body><article><h1>First heading</h1><p>Body text.</p></article>"
                                    "<p>OUTSIDE THE ARTICLE</p></body>", encoding="utf-8")
    write_pdf(root / "untitled.pdf", ["Only page."])
    (root / "tags.md").write_text("---\ntags: single\n---\nText.\n", encoding="utf-8")
    docs = {d["meta"]["id"]: d for d in read_corpus(files_corpus(root))}
    assert {i: d["title"] for i, d in docs.items()} == {
        "bare.html": "First heading", "readme.txt": "readme", "tags.md": "tags", "untitled.md": "untitled",
        "untitled.pdf": "untitled"}
    assert docs["bare.html"]["body"] == "Body text."        # the article only, its title heading left out
    assert docs["tags.md"]["tags"] == ["single"]
    assert sections(docs["untitled.md"]) == ["", "Part"]


def test_prep_names_each_skipped_file_and_why(folder, tmp_path, capsys):
    out = SimpleNamespace(docs_all=str(tmp_path / "docs-all.jsonl"), docs=str(tmp_path / "docs.jsonl"))
    prep.prep(input=None, output=out, params=SimpleNamespace(corpus=files_corpus(folder), store=str(tmp_path / "store")))
    log = capsys.readouterr().out.splitlines()
    start = log.index(f"skipped 6 files of {folder}:")
    assert log[start + 1:start + 7] == [
        "  data.txt: binary, not text",
        "  empty.md: empty",
        "  latin.txt: not UTF-8 text (byte 0xe9 on line 1); save it as UTF-8",
        "  photo.png: a suffix not read (.png; read: .md, .markdown, .txt, .html, .htm, .pdf)",
        "  plan {draft}.md: a name with { or } (Snakemake takes it for a wildcard); rename it",
        "  scan.pdf: no text layer (scanned?)"]
    assert f"files {folder}: documents 4, excluded by tag [] 0, kept 4" in log
    assert [d["meta"]["id"] for d in read_lines(out.docs)] == ["guides/setup.md", "manual.pdf", "notes.md",
                                                              "valve.html"]
    # prep depends on the files of the suffixes it reads, hidden ones and braced names not
    assert [Path(f).relative_to(folder).as_posix() for f in corpus_files(files_corpus(folder))] == [
        "data.txt", "empty.md", "guides/setup.md", "latin.txt", "manual.pdf", "notes.md", "scan.pdf", "valve.html"]


READ_IN_CHILD = """
import json, sys
from pathlib import Path
from ctxret.importers import files
docs, notes = files.read_corpus(sys.argv[1])
print(json.dumps({"ids": [d["meta"]["id"] for d in docs], "notes": notes,
                  "inputs": [Path(f).name for f in files.input_files(Path(sys.argv[1]))]}))
"""


def test_an_unreadable_file_is_skipped_and_is_no_input_of_prep(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "open.md").write_text("# Open\n\nReadable text.\n", encoding="utf-8")
    locked = root / "locked.md"
    locked.write_text("# Locked\n\nSecret text.\n", encoding="utf-8")
    locked.chmod(0)
    command = [sys.executable, "-c", READ_IN_CHILD, str(root)]
    if os.access(locked, os.R_OK):   # root reads anything: drop the capabilities that let it
        if not shutil.which("setpriv"):
            pytest.skip("running as root, and no setpriv to drop the right to read any file")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "scripts")}
    got = json.loads(subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout)
    assert got == {"ids": ["open.md"], "inputs": ["open.md"],
                   "notes": [f"skipped 1 file of {root}:", "  locked.md: cannot read it (Permission denied)",
                             "read 1 file: markdown 1", "clean-up: nothing removed"]}


def test_a_folder_without_a_document_stops_with_the_folder_named(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "empty.md").write_text("\n\n", encoding="utf-8")
    (root / "logo.png").write_bytes(b"\x89PNG")
    with pytest.raises(InputError) as e:
        read_corpus(files_corpus(root))
    assert str(e.value) == (f"{root}: no readable document in this folder (read: .md, .markdown, .txt, .html, "
                            f".htm, .pdf); skipped 2 files: empty.md: empty; logo.png: a suffix not read "
                            f"(.png; read: .md, .markdown, .txt, .html, .htm, .pdf)")
    with pytest.raises(InputError, match="folder not found"):
        read_corpus(files_corpus(tmp_path / "nowhere"))
    with pytest.raises(InputError, match="not a folder"):
        read_corpus(files_corpus(root / "empty.md"))


def test_two_paths_with_one_slug_are_both_named(tmp_path):
    root = tmp_path / "docs"
    (root / "a").mkdir(parents=True)
    (root / "a" / "b.md").write_text("One.\n", encoding="utf-8")
    (root / "a_b.md").write_text("Two.\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"documents 'a/b.md' and 'a_b.md' share the slug 'a_b.md'"):
        read_corpus(files_corpus(root))


DOCS = {"guides/setup.md": "# Pump setup\n\nUnpack the pump and place it level on the floor.\n\n## Wiring\n\n"
                           "Connect the red wire to terminal seven before the blue one.\n",
        "guides/ops/backup.md": "# Nightly backup\n\nThe backup job copies the database at two in the "
                                "morning.\n\n## Restore\n\nA restore reads the newest snapshot from the vault.\n",
        "faq.md": "# Questions\n\nThe office opens at nine.\n\n## Parking\n\nVisitors park behind the depot.\n"}


def test_the_mini_workflow_runs_on_a_folder_and_names_documents_by_their_paths(tmp_path):
    root = tmp_path / "docs"
    for rel, text in DOCS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    questions = write_lines(tmp_path / "questions.jsonl", [
        {"id": "q1", "question": "Which terminal takes the red wire?", "gold_slug": "guides_setup.md",
         "gold_passage": "Connect the red wire to terminal seven"},
        {"id": "q2", "question": "Where does a restore read the snapshot from?", "gold_slug": "guides_ops_backup.md",
         "gold_passage": "A restore reads the newest snapshot from the vault."}])
    config = write_config(tmp_path, {"corpus": {"format": "files", "path": str(root), "language": "en"},
                                     "questions": {"sets": {"Q": str(questions)}}, **BM25_ONLY})
    snakemake(config)
    res = tmp_path / "results"
    assert json.loads((res / "score.json").read_text())["results"]
    ids = {"guides/setup.md", "guides/ops/backup.md", "faq.md"}
    # the runs, the qrels and the flip lists name a chunk `<relative path>#<n>`, the document runs a document
    # by its relative path
    named = {trec.relative_to(res / "runs").as_posix(): [line.split()[2] for line in trec.read_text().splitlines()]
             for trec in [*(res / "runs").glob("*.trec"), *(res / "runs" / "doc").glob("*.trec")]}
    assert set(named) == {f"{d}bm25-{v}.trec" for d in ("", "doc/") for v in ("T0", "T1")}
    for run, names in named.items():
        assert names and all((n if run.startswith("doc/") else n.split("#")[0]) in ids for n in names), (run, names)
    assert {n.split("#")[0] for names in named.values() for n in names} >= {"guides/setup.md", "guides/ops/backup.md"}
    qrels = (res / "runs" / "qrels.txt").read_text().splitlines()
    assert [line.split()[:3] for line in qrels] == [["q1", "0", "guides/setup.md#2"],
                                                    ["q2", "0", "guides/ops/backup.md#2"]]
    gold = json.loads((res / "gold.json").read_text())["questions"]
    chunks = {c["chunk_id"]: c for c in read_lines(res / "chunks.jsonl")}
    flip = {"flipped": [{"qid": "q2"}]}
    pairs.labelled_flips(flip, gold, chunks)
    assert flip["flipped"][0]["gold"] == "guides/ops/backup.md#2 (Nightly backup — Restore)"
    assert "files " + str(root) + ": documents 3" in (res / "logs" / "prep.log").read_text()
