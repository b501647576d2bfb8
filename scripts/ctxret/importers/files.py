"""files: a folder of a team's own documents, read recursively in sorted order of their paths
(hidden files and folders left out): markdown (.md, .markdown; Docusaurus reads them as MDX), plain text (.txt), HTML
(.html, .htm) and PDF (.pdf). Main text, not chrome: the docs generators' markdown markup is
cleaned to its text (`markup`), HTML site chrome is left out, PDF pages are reflowed into
paragraphs; the log counts the files by type and what each clean-up removed.

A document's id is its path relative to the folder (`guides/setup.md`), kept in meta.id: runs,
qrels and reports name it so; its slug is that id made safe as a file name (`guides_setup.md`).
Title: markdown front matter `title:`, else the first `# ` heading; HTML `<title>`, else the
first `<h1>`; PDF the metadata title when it looks like one (not empty, not a file name such as
`Binder1.pdf`, not `untitled` nor `Microsoft Word - ...`), else its first line when that is
short and ends no sentence; else the file name without its suffix. Tags: front matter
`tags:` (a list of strings, or one string).

Sections: every heading becomes a `## ` line (what the chunkers split on) naming the headings it
sits under, `## Setup / Linux` for a `### Linux` under `## Setup`; the first level-1 heading
leaves the body when it says the title (T1 shows the title); a heading with no text before the
next one leaves the body too (no heading-only chunks; its name lives on in the next one's). Markdown headings are ATX (`#`..
`######`, not inside a code fence); a .txt file is kept as it is. HTML: the elements
corpus.html.content_selector (a CSS selector) names, else `<main>`, else the `<article>`s, else
the main text readability-lxml finds in `<body>`; without script, style, noscript, template,
nav, aside, footer and header (an article's own header stays: it holds the article's heading),
blocks whose text is all links (tables of contents, tool links, pagination) and headings'
permalinks (`¶`); h1..h6 become headings, a `<pre>` a fenced block. PDF: each page with text is a
section of its own, `## Page 3`, its lines joined into paragraphs (a break after a short line
that ends a sentence); an empty page is left out and counted.

A file that cannot be a document (unreadable, not a regular file (a FIFO is never opened to
wait), not UTF-8, binary, empty, no text, a PDF without a text layer, a suffix not read, front
matter unclosed or with a title that is no text, a name with braces, which Snakemake takes for a
wildcard) is skipped with one log line saying why; a folder without any document is an error.
Bytes that begin `%PDF-` are read as a PDF whatever the suffix. A link (file or folder) is
followed when its target is inside the folder; one pointing outside is skipped with a line unless
corpus.follow_links_out; a link back to a folder it sits in is skipped.
"""
from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

import yaml
from collections import Counter

from ctxret.errors import InputError
from ctxret.fileio import TEXT_ENCODING
from ctxret.importers import markup
from ctxret.importers.manifests import only_headings
from ctxret.text.documents import document, safe_slug, unique_slugs

SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".html": "html", ".htm": "html",
            ".pdf": "pdf"}
ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")  # a markdown heading line
FENCE = re.compile(r" {0,3}(```|~~~)")
PDF_MAGIC = b"%PDF-"
LINK_OUT = "outside the folder; not followed (corpus.follow_links_out: true reads it)"


class Skip(Exception):
    """Why a file is not a document (a log line, not an error)."""


@dataclass(frozen=True)
class Heading:
    level: int
    text: str


@dataclass(frozen=True)
class Parsed:
    title: str            # empty: the file name stands in
    body: str
    tags: list[str]
    kind: str = ""        # markdown, text, html or pdf: how it was read


@dataclass(frozen=True)
class Source:
    """What reading one file needs besides its bytes."""
    file: Path
    top: Path             # the corpus folder: includes are read from inside it only
    selector: str         # corpus.html.content_selector
    counts: Counter       # what each clean-up removed, for the whole corpus


# ---- the folder ---------------------------------------------------------------------------

def walk(folder: Path, links_out: bool = False) -> tuple[list[tuple[str, Path]], list[tuple[str, str]]]:
    """(relative path, path) of every file under `folder` not hidden (nor under a hidden
    folder), sorted by relative path, linked subfolders read as folders; and (relative path,
    why) of what is left out: a folder that cannot be listed, a link whose target is outside
    `folder` (unless `links_out`), a link back to a folder it sits in."""
    found, left_out = [], []
    top = folder.resolve()

    def visit(path: Path, rel: str, above: frozenset) -> None:
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError as e:
            left_out.append(((rel or ".") + "/", f"cannot list the folder ({e.strerror or e})"))
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            file, name = path / entry.name, f"{rel}/{entry.name}" if rel else entry.name
            link, is_folder = entry.is_symlink(), entry.is_dir()
            target = file.resolve() if link or is_folder else file
            if link and not links_out and not (target == top or top in target.parents):
                left_out.append((name, f"a link to {target}, {LINK_OUT}"))
            elif not is_folder:
                found.append((name, file))
            elif target in above:
                left_out.append((name + "/", f"a link to {target}, a folder it sits in; not followed"))
            else:
                visit(file, name, above | {target})

    visit(folder, "", frozenset({top}))
    return sorted(found), sorted(left_out)


def input_files(folder: Path, links_out: bool = False) -> list[str]:
    """What prep depends on: the readable regular files of a suffix it reads (Snakemake
    checksums its inputs, so an unreadable one is left to the log's skipped lines)."""
    if not folder.is_dir():
        return [str(folder)]
    return [str(p) for rel, p in walk(folder, links_out)[0]
            if p.suffix.lower() in SUFFIXES and not braced(rel) and p.is_file() and os.access(p, os.R_OK)]


def braced(rel: str) -> bool:
    """A name Snakemake would read as a wildcard pattern, so no rule input."""
    return "{" in rel or "}" in rel


def read_corpus(path: str, links_out: bool = False, content_selector: str = "") -> tuple[list[dict], list[str]]:
    """Every document of the folder, in path order, and the log lines on the files skipped, the
    files read by type and what each clean-up removed (`links_out`: links to files and folders
    outside it are read too; `content_selector`: the CSS selector of an HTML page's main text)."""
    folder = Path(path)
    if not folder.is_dir():
        raise InputError(f"{path}: {'not a folder' if folder.exists() else 'folder not found'} "
                         f"(corpus.format files reads a folder of documents)")
    check_selector(content_selector)
    files, skipped = walk(folder, links_out)
    docs, kinds, counts = [], Counter(), Counter()
    for rel, file in files:
        try:
            if braced(rel):
                raise Skip("a name with { or } (Snakemake takes it for a wildcard); rename it")
            parsed = parse(Source(file, folder, content_selector, counts))
        except Skip as why:
            skipped.append((rel, str(why)))
            continue
        kinds[parsed.kind] += 1
        docs.append(document(safe_slug(rel), parsed.title or file.stem, parsed.body, tags=parsed.tags,
                             meta={"id": rel}))
    skipped.sort()
    if not docs:
        listed = "; ".join(f"{rel}: {why}" for rel, why in skipped[:5]) + ("; ..." if len(skipped) > 5 else "")
        raise InputError(f"{path}: no readable document in this folder (read: {', '.join(SUFFIXES)})"
                         + (f"; skipped {files_n(len(skipped))}: {listed}" if skipped else ""))
    unique_slugs(docs, path)
    notes = [f"skipped {files_n(len(skipped))} of {path}:",
             *(f"  {rel}: {why}" for rel, why in skipped)] if skipped else []
    return docs, [*notes, f"read {files_n(len(docs))}: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())),
                  "clean-up: " + (", ".join(f"{what} {n}" for what, n in sorted((+counts).items())) or "nothing removed")]


def check_selector(selector: str) -> None:
    if selector:
        from bs4 import BeautifulSoup
        try:
            BeautifulSoup("", "html.parser").select(selector)
        except Exception as e:   # soupsieve's SelectorSyntaxError, raised through bs4
            raise InputError(f"config corpus.html.content_selector: {selector!r} is not a CSS selector "
                             f"({str(e).splitlines()[0]})") from None


def files_n(n: int) -> str:
    return f"{n} file{'s' if n != 1 else ''}"


def parse(source: Source) -> Parsed:
    """One file as a document; Skip says why it is not one."""
    file = source.file
    kind = SUFFIXES.get(file.suffix.lower())
    if kind is None:
        raise Skip(f"a suffix not read ({file.suffix or 'none'}; read: {', '.join(SUFFIXES)})")
    data = regular_file_bytes(file)
    if not data.strip():
        raise Skip("empty")
    if data.startswith(PDF_MAGIC):
        kind = "pdf"   # PDF bytes are never text, whatever the suffix says
    counts = Counter()   # this file's, added to the corpus's once it is a document
    parsed = PARSERS[kind](data, Source(file, source.top, source.selector, counts))
    body = parsed.body.strip()
    if not body or only_headings(body):
        raise Skip("no text" if not body else "only headings, no text")
    source.counts.update(counts)
    return Parsed(parsed.title, body, parsed.tags, kind)


def regular_file_bytes(file: Path) -> bytes:
    """The file's bytes; anything but a regular file (a FIFO, a device, a socket) is skipped
    without reading it: it is opened without waiting for a writer and checked once open."""
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise Skip(f"cannot read it ({e.strerror or e})") from None
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else ""
            raise Skip(f"not a regular file{f' ({kind})' if kind else ''}; not read")
        try:
            return f.read()
        except OSError as e:
            raise Skip(f"cannot read it ({e.strerror or e})") from None


# ---- text and markdown --------------------------------------------------------------------

def decoded(data: bytes) -> str:
    """UTF-8 text (a BOM dropped, line ends as \\n); binary or undecodable data is skipped."""
    if b"\x00" in data[:8192]:
        raise Skip("binary, not text")
    try:
        text = data.decode(TEXT_ENCODING)
    except UnicodeDecodeError as e:
        line = 1 + data.count(b"\n", 0, e.start)
        raise Skip(f"not UTF-8 text (byte {data[e.start]:#04x} on line {line}); save it as UTF-8") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def plain_text(data: bytes, source: Source) -> Parsed:
    return Parsed("", decoded(data), [])


def front_matter(text: str) -> tuple[dict, str]:
    """(YAML front matter between `---` lines at the top, the rest)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() in ("---", "...")), None)
    if end is None:
        raise Skip("front matter opened by --- on line 1 is never closed (no --- line after it)")
    try:
        meta = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise Skip(f"front matter is not YAML{f' (line {mark.line + 2})' if mark else ''}") from None
    if meta is not None and not isinstance(meta, dict):
        raise Skip("front matter is not a mapping of fields")
    return meta or {}, "\n".join(lines[end + 1:])


def tags_of(meta: dict) -> list[str]:
    tags = meta.get("tags")
    if tags is None:
        return []
    if isinstance(tags, str):
        return [tags]
    if isinstance(tags, list) and all(isinstance(t, str) for t in tags):
        return tags
    raise Skip("front matter tags must be a list of strings")


def markdown_parts(text: str) -> list[str | Heading]:
    """The text between headings, and the headings (ATX, outside code fences)."""
    parts: list[str | Heading] = []
    lines: list[str] = []
    fence = None
    for line in text.split("\n"):
        opened = FENCE.match(line)
        if opened and (fence is None or opened[1] == fence):
            fence = opened[1] if fence is None else None
        heading = ATX.fullmatch(line) if fence is None and not opened else None
        if heading:
            parts += ["\n".join(lines), Heading(len(heading[1]), (heading[2] or "").strip())]
            lines = []
        else:
            lines.append(line)
    return [*parts, "\n".join(lines)]


def markdown(data: bytes, source: Source) -> Parsed:
    meta, text = front_matter(decoded(data))
    parts = markdown_parts(markup.cleaned(text, markup.Includes(source.top, source.file), source.counts))
    given = meta.get("title")
    if isinstance(given, (list, dict)):
        raise Skip(f"front matter title is a {'list' if isinstance(given, list) else 'mapping'}, not text; "
                   f"quote it (title: \"...\")")
    title = str(given).strip() if given is not None else ""
    title = title or next((p.text for p in parts if isinstance(p, Heading) and p.level == 1 and p.text), "")
    return Parsed(title, sectioned(parts, title, source.counts), tags_of(meta))


def sectioned(parts: list[str | Heading], title: str, counts: Counter) -> str:
    """The body: texts as they are, each heading a `## ` line naming the headings it sits under
    (`## Setup / Linux`); the first level-1 heading is left out when it says the title, and a
    heading with no text before the next heading (or the end) is left out, counted."""
    out: list[tuple[bool, str]] = []   # (a heading?, its line or text)
    path, first_h1 = [], True
    for part in parts:
        if isinstance(part, Heading):
            if part.level == 1 and first_h1:
                first_h1 = False
                if part.text == title:
                    path = []
                    continue
            if part.text:
                path = [h for h in path if h.level < part.level] + [part]
                if out and out[-1][0]:
                    counts["heading-only sections"] += 1
                    out.pop()
                out.append((True, "## " + " / ".join(h.text for h in path)))
        elif trimmed(part):
            out.append((False, trimmed(part)))
    if len(out) > 1 and out[-1][0]:
        counts["heading-only sections"] += 1
        out.pop()
    return "\n\n".join(text for _, text in out)


def trimmed(text: str) -> str:
    """Text without blank lines at either end (a first line's indent kept) nor trailing spaces."""
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines).rstrip()


# ---- HTML ---------------------------------------------------------------------------------

NOISE = ("script", "style", "noscript", "template", "nav", "aside", "footer", "header")
CHROME = {"nav", "aside", "footer", "header"}
LINK_BLOCKS = ["div", "p", "ul", "ol", "dl", "section", "table"]   # left out when their text is all links
SEPARATORS = re.compile(r"[\s|·•/›»>,:;()\[\]\-–—]*")
PERMALINKS = {"¶", "#", "§", "🔗", "", "\uf0c1"}
HEADINGS = {f"h{n}": n for n in range(1, 7)}
BLOCKS = {"address", "article", "blockquote", "body", "caption", "dd", "details", "dialog", "div", "dl", "dt",
          "fieldset", "figcaption", "figure", "form", "hr", "html", "li", "main", "ol", "p", "section", "summary",
          "table", "tbody", "tfoot", "thead", "ul"}


class _Paragraphs:
    """Text gathered from a tree walk: inline text joined, whitespace collapsed as a browser
    does, a paragraph per block element, a line per <br>."""

    def __init__(self):
        self.parts: list[str | Heading] = []
        self.lines: list[str] = []
        self.line: list[str] = []

    def text(self, s: str) -> None:
        self.line.append(s)

    def newline(self) -> None:
        line = " ".join("".join(self.line).split())
        if line:
            self.lines.append(line)
        self.line = []

    def end(self) -> None:
        self.newline()
        if self.lines:
            self.parts.append("\n".join(self.lines))
        self.lines = []

    def add(self, part: str | Heading) -> None:
        self.end()
        self.parts.append(part)


def gather(node, out: _Paragraphs) -> None:
    from bs4.element import NavigableString, PreformattedString, Tag
    for child in node.children:
        if isinstance(child, Tag):
            if child.name in HEADINGS:
                out.add(Heading(HEADINGS[child.name], " ".join(child.get_text().split())))
            elif child.name == "pre":
                out.add(f"```\n{child.get_text().strip(chr(10))}\n```")
            elif child.name == "br":
                out.newline()
            elif child.name == "tr":
                cells = (" ".join(c.get_text(" ").split()) for c in child.find_all(["td", "th"]))
                out.add(" | ".join(c for c in cells if c))
            elif child.name in BLOCKS:
                out.end()
                gather(child, out)
                out.end()
            else:
                gather(child, out)
        elif isinstance(child, NavigableString) and not isinstance(child, PreformattedString):  # not a comment
            out.text(str(child))


def html(data: bytes, source: Source) -> Parsed:
    if b"\x00" in data[:8192]:
        raise Skip("binary, not text")
    from bs4 import BeautifulSoup
    soup = BeautifulSoup(data, "html.parser")   # bytes: the page's declared charset is honoured
    title = " ".join(soup.title.get_text().split()) if soup.title else ""
    for tag in soup.find_all(["head", "title"]):   # never body text, even in a page without <body>
        tag.decompose()
    counts = source.counts
    for tag in soup.find_all(NOISE):
        if not tag.decomposed and not (tag.name == "header" and tag.find_parent("article")):
            counts["HTML nav/header/footer/aside elements"] += tag.name in CHROME
            tag.decompose()
    roots = content(soup, source.selector, counts)
    for root in roots:
        for tag in root.find_all(LINK_BLOCKS):
            if not tag.decomposed and links_only(tag):
                counts["HTML blocks of links only (tables of contents, tool links)"] += 1
                tag.decompose()
        for link in root.select(", ".join(f"{h} a" for h in HEADINGS)):
            if link.get_text().strip() in PERMALINKS or "headerlink" in (link.get("class") or []):
                counts["HTML heading permalinks"] += 1
                link.decompose()
    out = _Paragraphs()
    for root in roots:
        gather(root, out)
        out.end()
    title = title or next((p.text for p in out.parts if isinstance(p, Heading) and p.level == 1 and p.text), "")
    return Parsed(title, sectioned(out.parts, title, counts), [])


def content(soup, selector: str, counts: Counter) -> list:
    """The elements holding the page's main text: the selector's, else `<main>`, else the
    outermost `<article>`s, else what readability-lxml finds in the body (taken from the page
    itself, so that nothing of the main text is lost to its clean-up)."""
    if selector:
        picked = soup.select(selector)
        ids = {id(t) for t in picked}
        chosen = [t for t in picked if not any(id(p) in ids for p in t.parents)]
        counts["HTML pages: the content_selector matched" if chosen else
               "HTML pages: the content_selector matched nothing (the whole page read)"] += 1
        return chosen or [soup.body or soup]
    if soup.main:
        return [soup.main]
    articles = [a for a in soup.find_all("article") if not a.find_parent("article")]
    if articles:
        return articles
    import lxml.html
    from bs4 import BeautifulSoup
    from readability import Document
    page = str(soup)
    try:
        summary = lxml.html.fragment_fromstring(Document(page, xpath=True).summary(html_partial=True))
        tree = lxml.html.document_fromstring(page)
    except Exception:   # readability's and lxml's own errors on a page they cannot read
        return [soup.body or soup]
    paths = [e.get("x") for e in summary.iter() if e.get("x")]
    tops = [x for x in paths if not any(x.startswith(o + "/") for o in paths)]
    nodes = [n for x in dict.fromkeys(tops) for n in tree.xpath(x)]
    if not nodes or any(n.tag in ("html", "body") for n in nodes):
        return [soup.body or soup]
    counts["HTML pages: main text found by readability"] += 1
    return [BeautifulSoup(lxml.html.tostring(n, encoding="unicode"), "html.parser") for n in nodes]


def links_only(tag) -> bool:
    """A block whose text is all links (a table of contents, "Edit this page", pagination)."""
    if tag.find(["pre", "code", *HEADINGS]) or not tag.find("a"):
        return False
    from bs4.element import PreformattedString
    outside = "".join(s for s in tag.find_all(string=True)
                      if not isinstance(s, PreformattedString) and s.find_parent("a") is None)
    return SEPARATORS.fullmatch(outside) is not None and bool(tag.get_text().strip())


# ---- PDF ----------------------------------------------------------------------------------

NOT_TITLES = re.compile(r"(?i)(untitled|document\d*|microsoft \w+ - .*|\S+\.[a-z0-9]{2,4})")
SENTENCE_END = (".", "!", "?", ":", "。")


def pdf_title(given: str, pages: list[str], counts: Counter) -> str:
    """The metadata title when it looks like a title, else the first line when it looks like a
    heading (short, ending no sentence), else none (the file name stands in)."""
    given = " ".join(str(given).split())
    if given and not NOT_TITLES.fullmatch(given):
        return given
    if given:
        counts["PDF metadata titles not used (a file name, untitled)"] += 1
    first = next((line.strip() for page in pages for line in page.split("\n") if line.strip()), "")
    return first if len(first) <= 100 and not first.endswith((*SENTENCE_END, ",", ";")) else ""


def paragraphs(page: str) -> str:
    """A page's lines joined into paragraphs: a break at a blank line, or after a line that ends
    a sentence and is shorter than most (the last line of a paragraph)."""
    lines = [line.strip() for line in page.split("\n")]
    width = max(map(len, lines))
    out, cur = [], []
    for line in lines:
        if line:
            cur.append(line)
        if cur and (not line or (line.endswith(SENTENCE_END) and len(line) < 0.8 * width)):
            out.append(" ".join(cur))
            cur = []
    return "\n\n".join([*out, " ".join(cur)] if cur else out)


def pdf(data: bytes, source: Source) -> Parsed:
    """Each page with text a `## Page N` section of paragraphs; empty pages left out (counted);
    no page with text: no text layer."""
    import io

    from pypdf import PdfReader
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise Skip("encrypted PDF (it needs a password)")
        pages = [(page.extract_text() or "").replace("\x00", "") for page in reader.pages]
        title = (reader.metadata.title or "") if reader.metadata else ""
    except Skip:
        raise
    except Exception as e:  # a damaged PDF raises pypdf's own errors and ValueError, KeyError, ...
        raise Skip(f"not a readable PDF ({type(e).__name__}: {e})") from None
    sections = [f"## Page {n}\n\n{paragraphs(text)}" for n, text in enumerate(pages, 1) if text.strip()]
    if not sections:
        raise Skip("no text layer (scanned?)")
    source.counts["empty PDF pages"] += len(pages) - len(sections)
    return Parsed(pdf_title(title, pages, source.counts), "\n\n".join(sections), [])


PARSERS = {"markdown": markdown, "text": plain_text, "html": html, "pdf": pdf}
