"""files: a folder of a team's own documents, read recursively in sorted order of their paths
(hidden files and folders left out): markdown (.md, .markdown), plain text (.txt), HTML (.html,
.htm) and PDF (.pdf).

A document's id is its path relative to the folder (`guides/setup.md`), kept in meta.id: runs,
qrels and reports name it so; its slug is that id made safe as a file name (`guides_setup.md`).
Title: markdown front matter `title:`, else the first `# ` heading; HTML `<title>`, else the
first `<h1>`; PDF the metadata title; else the file name without its suffix. Tags: front matter
`tags:` (a list of strings, or one string).

Sections: every heading becomes a `## ` line (what the chunkers split on) naming the headings it
sits under, `## Setup / Linux` for a `### Linux` under `## Setup`; the first level-1 heading
leaves the body when it says the title (T1 shows the title). Markdown headings are ATX (`#`..
`######`, not inside a code fence); a .txt file is kept as it is. HTML: the text of `<main>`, else
of the `<article>`s, else of `<body>`, without script, style, noscript, template, nav, aside,
footer and header (an article's own header stays: it holds the article's heading); h1..h6 become
headings, a `<pre>` a fenced block. PDF: each page with text is a section of its own, `## Page 3`.

A file that cannot be a document (unreadable, not UTF-8, binary, empty, no text, a PDF without a
text layer, a suffix not read, a name with braces, which Snakemake takes for a wildcard) is skipped
with one log line saying why; a folder without any document is an error.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from ..documents import document, safe_slug, unique_slugs
from ..errors import InputError
from ..fileio import TEXT_ENCODING
from .manifests import only_headings

SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".html": "html", ".htm": "html",
            ".pdf": "pdf"}
ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")  # a markdown heading line
FENCE = re.compile(r" {0,3}(```|~~~)")


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


# ---- the folder ---------------------------------------------------------------------------

def walk(folder: Path) -> tuple[list[tuple[str, Path]], list[tuple[str, str]]]:
    """(relative path, path) of every file under `folder` not hidden (nor under a hidden
    folder), sorted by relative path; and (relative path, why) of each folder that cannot be
    listed."""
    found, unlisted = [], []

    def unlistable(e: OSError) -> None:
        unlisted.append((Path(e.filename).relative_to(folder).as_posix() + "/",
                         f"cannot list the folder ({e.strerror or e})"))

    for root, dirs, names in os.walk(folder, onerror=unlistable):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            if not name.startswith("."):
                path = Path(root) / name
                found.append((path.relative_to(folder).as_posix(), path))
    return sorted(found), sorted(unlisted)


def input_files(folder: Path) -> list[str]:
    """What prep depends on: the readable files of a suffix it reads (Snakemake checksums its
    inputs, so an unreadable one is left to the log's skipped lines)."""
    if not folder.is_dir():
        return [str(folder)]
    return [str(p) for rel, p in walk(folder)[0]
            if p.suffix.lower() in SUFFIXES and not braced(rel) and p.is_file() and os.access(p, os.R_OK)]


def braced(rel: str) -> bool:
    """A name Snakemake would read as a wildcard pattern, so no rule input."""
    return "{" in rel or "}" in rel


def read_corpus(path: str) -> tuple[list[dict], list[str]]:
    """Every document of the folder, in path order, and the log lines on the files skipped."""
    folder = Path(path)
    if not folder.is_dir():
        raise InputError(f"{path}: {'not a folder' if folder.exists() else 'folder not found'} "
                         f"(corpus.format files reads a folder of documents)")
    files, skipped = walk(folder)
    docs = []
    for rel, file in files:
        try:
            if braced(rel):
                raise Skip("a name with { or } (Snakemake takes it for a wildcard); rename it")
            parsed = parse(file)
        except Skip as why:
            skipped.append((rel, str(why)))
            continue
        docs.append(document(safe_slug(rel), parsed.title or file.stem, parsed.body, tags=parsed.tags,
                             meta={"id": rel}))
    skipped.sort()
    if not docs:
        listed = "; ".join(f"{rel}: {why}" for rel, why in skipped[:5]) + ("; ..." if len(skipped) > 5 else "")
        raise InputError(f"{path}: no readable document in this folder (read: {', '.join(SUFFIXES)})"
                         + (f"; skipped {files_n(len(skipped))}: {listed}" if skipped else ""))
    unique_slugs(docs, path)
    notes = [f"skipped {files_n(len(skipped))} of {path}:",
             *(f"  {rel}: {why}" for rel, why in skipped)]
    return docs, notes if skipped else []


def files_n(n: int) -> str:
    return f"{n} file{'s' if n != 1 else ''}"


def parse(file: Path) -> Parsed:
    """One file as a document; Skip says why it is not one."""
    kind = SUFFIXES.get(file.suffix.lower())
    if kind is None:
        raise Skip(f"a suffix not read ({file.suffix or 'none'}; read: {', '.join(SUFFIXES)})")
    try:
        data = file.read_bytes()
    except OSError as e:
        raise Skip(f"cannot read it ({e.strerror or e})") from None
    if not data.strip():
        raise Skip("empty")
    parsed = PARSERS[kind](data)
    body = parsed.body.strip()
    if not body or only_headings(body):
        raise Skip("no text" if not body else "only headings, no text")
    return Parsed(parsed.title, body, parsed.tags)


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


def plain_text(data: bytes) -> Parsed:
    return Parsed("", decoded(data), [])


def front_matter(text: str) -> tuple[dict, str]:
    """(YAML front matter between `---` lines at the top, the rest)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() in ("---", "...")), None)
    if end is None:
        return {}, text
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


def markdown(data: bytes) -> Parsed:
    meta, text = front_matter(decoded(data))
    parts = markdown_parts(text)
    given = meta.get("title")
    title = str(given).strip() if given is not None else ""
    title = title or next((p.text for p in parts if isinstance(p, Heading) and p.level == 1 and p.text), "")
    return Parsed(title, sectioned(parts, title), tags_of(meta))


def sectioned(parts: list[str | Heading], title: str) -> str:
    """The body: texts as they are, each heading a `## ` line naming the headings it sits under
    (`## Setup / Linux`); the first level-1 heading is left out when it says the title."""
    out, path, first_h1 = [], [], True
    for part in parts:
        if isinstance(part, Heading):
            if part.level == 1 and first_h1:
                first_h1 = False
                if part.text == title:
                    path = []
                    continue
            if part.text:
                path = [h for h in path if h.level < part.level] + [part]
                out.append("## " + " / ".join(h.text for h in path))
        elif trimmed(part):
            out.append(trimmed(part))
    return "\n\n".join(out)


def trimmed(text: str) -> str:
    """Text without blank lines at either end (a first line's indent kept) nor trailing spaces."""
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines).rstrip()


# ---- HTML ---------------------------------------------------------------------------------

NOISE = ("script", "style", "noscript", "template", "nav", "aside", "footer", "header")
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


def html(data: bytes) -> Parsed:
    if b"\x00" in data[:8192]:
        raise Skip("binary, not text")
    from bs4 import BeautifulSoup
    soup = BeautifulSoup(data, "html.parser")   # bytes: the page's declared charset is honoured
    title = " ".join(soup.title.get_text().split()) if soup.title else ""
    for tag in soup.find_all(["head", "title"]):   # never body text, even in a page without <body>
        tag.decompose()
    roots = ([soup.main] if soup.main else
             [a for a in soup.find_all("article") if not a.find_parent("article")] or [soup.body or soup])
    for root in roots:
        for tag in root.find_all(NOISE):
            if not (tag.name == "header" and tag.find_parent("article")):
                tag.decompose()
    out = _Paragraphs()
    for root in roots:
        gather(root, out)
        out.end()
    title = title or next((p.text for p in out.parts if isinstance(p, Heading) and p.level == 1 and p.text), "")
    return Parsed(title, sectioned(out.parts, title), [])


# ---- PDF ----------------------------------------------------------------------------------

def pdf(data: bytes) -> Parsed:
    """Each page with text a `## Page N` section; no page with text: no text layer."""
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
    sections = [f"## Page {n}\n\n{trimmed(text)}" for n, text in enumerate(pages, 1) if text.strip()]
    if not sections:
        raise Skip("no text layer (scanned?)")
    return Parsed(" ".join(str(title).split()), "\n\n".join(sections), [])


PARSERS = {"markdown": markdown, "text": plain_text, "html": html, "pdf": pdf}
