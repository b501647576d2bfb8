"""What every set's question records share: where each comes from, and ids for a set that
gives none.

A set whose questions have no id field at all (or whose `columns.id` is empty) names each
question `<set>:<line>` (a table's `<set>:<row>`, its first row 1): no whitespace, unique
across sets, and unchanged by an edit of another line. Each such question is a bootstrap
cluster of its own (its `cluster`, if it gives one, wins): the line numbers of two sets do not
pair questions. A set giving ids to some questions only is refused at the first without one.
"""
from __future__ import annotations

import re

from ctxret.errors import InputError


def location(row: dict) -> str:
    """Where a question record comes from: file:line, else the file and its row or id."""
    if row.get("line"):
        return f"{row['file']}:{row['line']}"
    return f"{row['file']} ({row.get('record') or 'question ' + str(row.get('id'))})"


def numbered(name: str, spec: dict, rows: list[dict]) -> list[dict]:
    """The set's records, each with an id: its own, or `<set>:<line>` when no record has one."""
    if not rows or any("id" in r for r in rows):
        return rows   # validate names a record without its id
    field = (spec.get("columns") or {}).get("id", "id")
    if field not in ("", "id"):
        raise InputError(f"{location(rows[0])}: no field {field!r} (questions.sets.{name}.columns.id)")
    if re.search(r"\s", name):
        raise InputError(f"config questions.sets.{name}: the questions have no ids, and the set's name, which "
                         f"would name them ({name}:<line>), contains whitespace")
    out = []
    for r in rows:
        qid = f"{name}:{r['line'] or r['row']}"
        out.append({**r, "id": qid, "cluster": r.get("cluster", qid)})
    return out
