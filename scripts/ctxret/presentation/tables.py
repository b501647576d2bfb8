"""Tables as (header, rows) of strings, rendered as Markdown or HTML."""
from __future__ import annotations

from html import escape
from typing import NamedTuple


class Shortened(NamedTuple):
    """A cell shown shortened in HTML, its whole value in the cell's title (on hover); whole in Markdown."""
    value: str
    shown: int = 12

    def __str__(self) -> str:
        return self.value


class Linked(NamedTuple):
    """A cell that links to `href` in HTML; its value alone in Markdown."""
    value: str
    href: str

    def __str__(self) -> str:
        return self.value


def _td(c) -> str:
    if isinstance(c, Linked):
        return f'<td><a href="{escape(c.href)}">{escape(c.value)}</a></td>'
    if isinstance(c, Shortened) and len(c.value) > c.shown:
        return f'<td title="{escape(c.value)}"><code>{escape(c.value[:c.shown])}…</code></td>'
    return f"<td>{escape(str(c))}</td>"


def markdown_table(head: list[str], rows: list[list[str]]) -> str:
    def line(row):
        return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in row) + " |"
    return "\n".join([line(head), "|" + "---|" * len(head), *map(line, rows)])


def html_table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{escape(str(h))}</th>" for h in head)
    body = "".join("<tr>" + "".join(map(_td, row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"
