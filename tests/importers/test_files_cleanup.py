"""corpus.format files, main text not chrome: the docs generators' markdown markup (MkDocs
attribute lists, admonitions, includes; Docusaurus MDX), HTML site chrome in divs and PDF
metadata that is no title read as a user reads the page, and prep counting what it removed."""
from types import SimpleNamespace

from conftest import corpus_settings, read_lines
from test_files_importer import write_pdf

from ctxret.chunkers.paragraph import chunk_document
from ctxret.stages import prep

MKDOCS = """# Body - Updates

## Partial updates { #partial-updates-with-patch }

You can use the HTTP PATCH operation to update data partially.

{* ../docs_src/body_updates/tutorial001.py hl[9] *}

/// note | Technical details

PATCH is less used than PUT.

///

!!! warning "Mind the defaults"
    Input models may hold default values.

--8<-- "/etc/hostname"

{* ../../outside.py *}
"""
TUTORIAL = "def update_item(item_id: str):\n    return item_id\n"
MDX = """---
title: Tabs in depth
---
import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';

## Choosing a tab {#choosing}

:::tip[Keep it short]
Each tab holds one variant of the instructions.
:::

<Tabs>
<TabItem value="py" label="Python">
Python users run the script.
</TabItem>
</Tabs>

export const meta = {};
"""
PAGE = """<html><head><title>Valve care</title></head><body>
<div class="md-header">FastDocs SITENAV</div>
<div class="sidebar"><div class="menu"><ul><li><a href="/">Home SITENAV</a></li><li><a href="/t">Tutorial SITENAV</a></li></ul></div></div>
<div class="toc">Table of contents<ul><li><a href="#a">Cleaning TOCLINK</a></li><li><a href="#b">Tools TOCLINK</a></li></ul></div>
<div class="content"><div class="inner">
<div class="tools"><a href="/edit">Edit this page TOOLLINK</a> | <a href="/raw">View source TOOLLINK</a></div>
<h1>Valve care</h1>
<h2 id="a">Cleaning<a class="headerlink" href="#a">¶</a></h2>
<p>Clean the valve every month with warm water, and dry it before you put it back in the pump housing.</p>
<h2 id="b">Tools<a class="headerlink" href="#b">¶</a></h2>
<p>A soft brush and a cloth are all you need; never use a wire brush on the seal, it scratches the rubber.</p>
</div></div>
<div class="footer">Copyright 2026 FOOTERTEXT <a href="/privacy">Privacy FOOTERLINK</a></div>
</body></html>"""
LONG_PAGE = [("The pump starts at dawn and runs until the tank is full of water again.\n" * 6
              + "It stops on its own.\n") * 2]


def test_markup_chrome_and_pdf_metadata_stay_out_of_the_documents_and_prep_counts_them(tmp_path, capsys):
    root = tmp_path / "docs"
    (root / "guide").mkdir(parents=True)
    (root / "docs_src" / "body_updates").mkdir(parents=True)
    (root / "guide" / "updates.md").write_text(MKDOCS, encoding="utf-8")
    (root / "docs_src" / "body_updates" / "tutorial001.py").write_text(TUTORIAL, encoding="utf-8")
    (tmp_path / "outside.py").write_text("SECRET = 1\n", encoding="utf-8")
    (root / "tabs.md").write_text(MDX, encoding="utf-8")
    (root / "valve.html").write_text(PAGE, encoding="utf-8")
    write_pdf(root / "binder.pdf", [LONG_PAGE[0], ""], title="Binder1.pdf")
    out = SimpleNamespace(docs_all=str(tmp_path / "docs-all.jsonl"), docs=str(tmp_path / "docs.jsonl"))
    corpus = corpus_settings(root, format="files", language="en")
    prep.prep(input=None, output=out, params=SimpleNamespace(corpus=corpus, store=str(tmp_path / "store")))
    log = capsys.readouterr().out.splitlines()
    docs = {d["meta"]["id"]: d for d in read_lines(out.docs)}
    updates, tabs, valve, binder = (docs[i] for i in ("guide/updates.md", "tabs.md", "valve.html", "binder.pdf"))
    # MkDocs: the heading without its attribute list, admonitions as their titles and text, the
    # include inside the folder as its code, those outside dropped
    assert "## Partial updates\n" in updates["body"] and "{" not in updates["body"].replace("{}", "")
    assert "```python\ndef update_item(item_id: str):" in updates["body"]
    assert "Technical details\n\nPATCH is less used than PUT." in updates["body"]
    assert "Mind the defaults\nInput models may hold default values." in updates["body"]
    assert not any(m in updates["body"] for m in ("///", "!!!", "--8<--", "{*", "SECRET", "hl[9]"))
    # Docusaurus MDX: no import/export or JSX-only lines, no ::: fences
    assert tabs["body"] == ("## Choosing a tab\n\nKeep it short\nEach tab holds one variant of the instructions."
                            "\n\nPython users run the script.")
    # HTML: the main text found by readability, without the navigation, TOC, tool links, footer, ¶
    assert valve["body"].startswith("## Cleaning\n\nClean the valve every month")
    assert "## Tools\n\nA soft brush" in valve["body"]
    assert not any(m in valve["body"] for m in ("SITENAV", "TOCLINK", "TOOLLINK", "FOOTER", "¶"))
    # PDF: the file-name title not used (the first line ends a sentence: the file name stands in),
    # the empty page left out, the page's heading joins its text
    assert binder["title"] == "binder"
    assert binder["body"].startswith("## Page 1\n\nThe pump starts at dawn") and "Page 2" not in binder["body"]
    for doc in docs.values():
        chunks = [doc["body"][c["start"]:c["end"]] for c in chunk_document(doc["body"], 800)]
        assert not [c for c in chunks if all(line.startswith("## ") or not line.strip() for line in c.split("\n"))]
    assert "read 4 files: html 1, markdown 2, pdf 1" in log
    cleanup = next(line for line in log if line.startswith("clean-up: "))
    for count in ("admonition fences 3", "heading attribute lists 2", "include lines resolved 1",
                  "include lines dropped (outside the folder or not found) 2", "MDX import/export lines 3",
                  "JSX-only lines 4", "empty PDF pages 1", "PDF metadata titles not used (a file name, untitled) 1",
                  "HTML heading permalinks 2", "HTML pages: main text found by readability 1"):
        assert count in cleanup


def test_an_include_is_read_from_the_docs_root_above_the_page_as_docs_sites_resolve_it(tmp_path, capsys):
    # FastAPI's layout: docs/en/docs/tutorial/*.md include ../../docs_src/... from docs/en's parent
    root = tmp_path / "site"
    page = root / "docs" / "en" / "docs" / "tutorial" / "body.md"
    page.parent.mkdir(parents=True)
    (root / "docs_src" / "body").mkdir(parents=True)
    page.write_text("# Body\n\nDeclare the model.\n\n{* ../../docs_src/body/tutorial001.py hl[4] *}\n"
                    "\n{* ../../../../../outside.py *}\n", encoding="utf-8")
    (root / "docs_src" / "body" / "tutorial001.py").write_text(TUTORIAL, encoding="utf-8")
    (tmp_path / "outside.py").write_text("SECRET = 1\n", encoding="utf-8")
    out = SimpleNamespace(docs_all=str(tmp_path / "docs-all.jsonl"), docs=str(tmp_path / "docs.jsonl"))
    prep.prep(input=None, output=out, params=SimpleNamespace(corpus=corpus_settings(root, format="files", language="en"),
                                                             store=str(tmp_path / "store")))
    log = capsys.readouterr().out.splitlines()
    body = next(iter(read_lines(out.docs)))["body"]
    assert "Declare the model.\n\n```python\ndef update_item(item_id: str):\n    return item_id\n```" in body
    assert "SECRET" not in body and "{*" not in body
    cleanup = next(line for line in log if line.startswith("clean-up: "))
    assert "include lines resolved 1" in cleanup and "include lines dropped (outside the folder or not found) 1" in cleanup
