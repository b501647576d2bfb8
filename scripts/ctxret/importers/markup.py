"""The markdown dialects of the common docs generators cleaned to their text, before the files
format reads headings: MkDocs/Material heading attribute lists (`## Title { #id }`), admonition
fences (`!!! note "Title"`, `/// note | Title`, Docusaurus `:::note`), MDX import/export lines and
lines of JSX tags only, MyST directive fences (```` ```{note} ````, `:::{note}`), and include
lines (`{* path hl[9] *}`, `--8<-- "path"`, MyST `{include}`/`{literalinclude}`) replaced by the
included file when it is inside the corpus folder, else dropped. Each clean-up is counted.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ctxret.fileio import TEXT_ENCODING

ATTRIBUTES = re.compile(r"(\s*#{1,6}\s.*?)\s*\{:?\s*[#.][^{}]*\}\s*$")   # ## Title { #id .class }
BANG = re.compile(r"( *)(?:!!!|\?\?\?\+?) *[\w-]+(?: +\"(.*)\")? *$")      # !!! note "Title"
BLOCK = re.compile(r" *(/{3,}|:{3,}) *\{?([\w-]*)\}?(?:\[(.*)\]| *\|? *(.*?))? *$")   # /// note | T, :::tip[T], :::{note}
MYST = re.compile(r" *(`{3,}|~{3,}) *\{([\w-]+)\} *(.*?) *$")                # ```{note} args
OPTION = re.compile(r" *:[\w-]+:.*$")                                         # a directive's :option: line
MDX = re.compile(r"""(?:import\s.+\sfrom\s+['"][^'"]+['"]|import\s+['"][^'"]+['"]"""
                 r"|export\s+(?:default|const|let|var|function|class)\b.*);?\s*$")
JSX = re.compile(r" *(?:</?[A-Z][\w.]*(?:\s[^<>]*)?/?> *|\{/\*.*\*/\} *)+$")
MACRO = re.compile(r" *\{\* *(\S+).*\*\} *$")                                # {* ../src/app.py hl[9] *}
SNIPPET = re.compile(r" *-{1,2}8<-{1,2} *[\"']([^\"']+)[\"'] *$")             # --8<-- "file.md"
CODE_DIRECTIVES = {"code", "code-block", "sourcecode"}
DROPPED_DIRECTIVES = {"toctree", "contents"}
LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "typescript", ".sh": "bash", ".json": "json",
             ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".sql": "sql", ".go": "go", ".rs": "rust",
             ".java": "java", ".html": "html", ".css": "css"}
FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


class Includes:
    """Where an include line may read from: files inside `top` (the corpus folder) only, the name
    taken from the page's folder, else from each folder above it up to `top` (a docs site resolves
    its includes from its docs root: FastAPI's `{* ../../docs_src/... *}` from docs/en)."""

    def __init__(self, top: Path, file: Path):
        self.top, self.here = top.resolve(), file.parent.resolve()

    def bases(self) -> list[Path]:
        folders = [self.here, *self.here.parents]
        return folders[:folders.index(self.top) + 1] if self.top in folders else [self.top]

    def read(self, name: str) -> str | None:
        for base in self.bases():
            path = (base / name).resolve()
            if (self.top in path.parents) and path.is_file():
                try:
                    return path.read_text(encoding=TEXT_ENCODING).replace("\r\n", "\n").rstrip("\n")
                except (OSError, UnicodeDecodeError):
                    return None
        return None


def code_block(text: str, name: str) -> str:
    return f"```{LANGUAGES.get(Path(name).suffix.lower(), '')}\n{text}\n```"


def include(name: str, code: bool, includes: Includes, counts: Counter) -> list[str]:
    text = includes.read(name)
    if text is None:
        counts["include lines dropped (outside the folder or not found)"] += 1
        return []
    counts["include lines resolved"] += 1
    return (code_block(text, name) if code else text).split("\n")


def cleaned(text: str, includes: Includes, counts: Counter) -> str:
    """The markdown `text` with the docs generators' markup replaced by what it says."""
    out: list[str] = []
    lines = text.split("\n")
    fence = None           # the code fence we are in (its marker), whose lines stay as they are
    closers: list[str] = []   # the markers of the admonition or directive blocks open
    dedent: list[int] = []    # the indents of the `!!!` admonitions open
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if fence is not None:
            out.append(line)
            if line.strip() == fence:
                fence = None
            continue
        while dedent and line.strip() and len(line) - len(line.lstrip(" ")) < dedent[-1]:
            dedent.pop()
        if dedent:
            line = line[dedent[-1]:] if line[:dedent[-1]].strip() == "" else line.lstrip()
        if (m := MYST.fullmatch(line)):
            name, arg = m[2].lower(), m[3]
            body, i = directive_body(lines, i, m[1])
            counts["directive fences"] += 1
            if name in ("include", "literalinclude"):
                out += include(arg, name == "literalinclude", includes, counts)
            elif name in CODE_DIRECTIVES:
                out += [f"```{arg}", *body, "```"]
            elif name not in DROPPED_DIRECTIVES:
                out += [arg, *body] if arg else body
            continue
        if closers and line.strip() == closers[-1]:
            closers.pop()
            continue
        if (m := BLOCK.fullmatch(line)) and (m[2] or m[3] or m[4]):
            closers.append(m[1])
            counts["admonition fences"] += 1
            title = m[3] or m[4]
            out += [title] if title else []
            continue
        if (m := BANG.fullmatch(line)):
            dedent.append(len(m[1]) + 4)
            counts["admonition fences"] += 1
            out += [m[2]] if m[2] else []
            continue
        if (m := MACRO.fullmatch(line)) or (m := SNIPPET.fullmatch(line)):
            out += include(m[1], m.re is MACRO, includes, counts)
            continue
        if MDX.fullmatch(line):
            counts["MDX import/export lines"] += 1
            continue
        if JSX.fullmatch(line):
            counts["JSX-only lines"] += 1
            continue
        if (m := ATTRIBUTES.fullmatch(line)):
            counts["heading attribute lists"] += 1
            line = m[1]
        if (opened := FENCE.match(line)):
            fence = opened[1]
        out.append(line)
    return "\n".join(out)


def directive_body(lines: list[str], i: int, marker: str) -> tuple[list[str], int]:
    """The content lines of the directive opened by `marker` above line `i` (its :option: lines
    left out) and the line after its closing fence."""
    body = []
    while i < len(lines) and lines[i].strip() != marker:
        if body or not OPTION.fullmatch(lines[i]):
            body.append(lines[i])
        i += 1
    return body, i + 1
