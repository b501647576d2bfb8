"""Tables as (header, rows) of strings, rendered as Markdown or HTML."""
from __future__ import annotations

from html import escape


def markdown_table(head: list[str], rows: list[list[str]]) -> str:
    def line(row):
        return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in row) + " |"
    return "\n".join([line(head), "|" + "---|" * len(head), *map(line, rows)])


def html_table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{escape(str(h))}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"
