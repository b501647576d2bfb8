"""Contexts made elsewhere (a context variant's `file:`): a JSON Lines or parquet file, a record per
chunk naming its document (the document's own id, as outputs name it) and its chunk, an integer
(its index in the document, from 0) or a string (its chunk id, as outputs name it), and its
context; the field names are configurable (`fields`). With `context_position` (prefix, suffix) a
record holds the contextualised chunk text instead (`fields.text`: the context, then the chunk's
text, or the reverse), and the context is what is left once the chunk's text is taken off its end
(or start), compared word by word. Every context passes the checks a paid reply passes
(ctxret.contexts.replies); a record that cannot be read, does not hold its chunk's text or fails a
check stops the run naming its file and line, and so does a chunk of the run that no record covers.

The contexts are written as a free backend's records (`GivenBackend`), so the variant, its
ledger and its lengths read them as they read X1's and A1's.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ctxret.contexts.llm import Backend, CallResult
from ctxret.contexts.llm.base import zero_usage
from ctxret.contexts.replies import ReplyChecks
from ctxret.errors import InputError
from ctxret.fileio import iter_jsonl, sha256_file

SHOWN_MISSING = 10  # chunks named in the line that stops a run for chunks no record covers
WORD = re.compile(r"\S+")
# a contextualised chunk text by context_position: where it holds the chunk's text, in what order
END = {"prefix": "end with", "suffix": "start with"}
ORDER = {"prefix": "the context, then the chunk's text", "suffix": "the chunk's text, then the context"}


@dataclass(frozen=True)
class Given:
    """A record's context (checked as it is read) or, with a context_position, its contextualised
    chunk text (separated and checked once its chunk is known); `where` its file and line."""
    where: str
    text: str


def _rows(path: str):
    """(where, record) of every record: `file:line` of JSON Lines, `file row n` of parquet."""
    if not Path(path).is_file():
        raise InputError(f"{path}: file not found")
    if Path(path).suffix.lower() == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet
        try:
            rows = pa.parquet.read_table(path).to_pylist()
        except (pa.ArrowInvalid, OSError) as e:
            raise InputError(f"{path}: cannot read it as parquet ({e})") from None
        return ((f"{path} row {i}", row) for i, row in enumerate(rows, 1))
    return ((f"{path}:{lineno}", row) for lineno, row in iter_jsonl(path))


def read_given(path: str, fields: dict, checks: ReplyChecks,
               position: str | None = None) -> dict[tuple[str, int | str], Given]:
    """{(document id, chunk index or chunk id): Given} of the file; InputError naming the file and
    line of a record without its fields, naming a chunk twice, or whose context fails a reply check
    (with a `position`, its field `text` is read, and checked by `covering` once the chunks are known)."""
    field = fields["text"] if position else fields["context"]
    found: dict[tuple[str, int | str], Given] = {}
    for where, row in _rows(path):
        missing = [f for f in (fields["doc"], fields["chunk"], field) if row.get(f) is None]
        if missing:
            raise InputError(f"{where}: no field {', '.join(map(repr, missing))} (the fields of a record: "
                             f"{', '.join(map(repr, row))}; map yours in fields)")
        doc, chunk, text = row[fields["doc"]], row[fields["chunk"]], row[field]
        if not (isinstance(chunk, int) and not isinstance(chunk, bool) and chunk >= 0) and \
                not (isinstance(chunk, str) and chunk.strip()):
            raise InputError(f"{where}: field {fields['chunk']!r} must be a chunk index (an integer from 0) or a "
                             f"chunk id (a string), got {chunk!r}")
        if not isinstance(text, str):
            raise InputError(f"{where}: field {field!r} must be a string, got {type(text).__name__}")
        if not position:
            text = text.strip()
            _check(text, where, checks)
        key = (str(doc), chunk)
        if key in found:
            raise InputError(f"{where}: document {key[0]!r} chunk {chunk!r} has a context already")
        found[key] = Given(where, text)
    return found


def _check(context: str, where: str, checks: ReplyChecks) -> None:
    problem = checks.problem(context)
    if problem is not None:
        raise InputError(f"{where}: the context fails the reply checks ({problem[0]}: {problem[1]})")


def separated(text: str, chunk_text: str, position: str) -> str | None:
    """The context of a contextualised chunk text: `text` less the chunk's text at its end (the
    context a prefix) or at its start (a suffix), stripped; the two compared word by word (every
    run of whitespace, line breaks included, as one; both in Unicode NFC). None when `text` does
    not end (start) with the chunk's text."""
    text = unicodedata.normalize("NFC", text)
    words, own = list(WORD.finditer(text)), WORD.findall(unicodedata.normalize("NFC", chunk_text))
    if not own or len(words) < len(own):
        return None
    part = words[len(words) - len(own):] if position == "prefix" else words[:len(own)]
    if [m[0] for m in part] != own:
        return None
    return (text[:part[0].start()] if position == "prefix" else text[part[-1].end():]).strip()


def covering(given: dict[tuple[str, int | str], Given], chunks: list[dict], path: str, fields: dict,
             checks: ReplyChecks, position: str | None = None) -> dict[str, str]:
    """{chunk_id: context} of every chunk (records in corpus order, each with its `doc`, `name` and
    `text`); with a `position`, each context separated from its record's text (`separated`) and
    checked. InputError naming the record whose text does not hold its chunk's, or whose context
    fails a check, or the chunks no record covers."""
    out, missing, index = {}, [], {}
    for c in chunks:
        i = index[c["doc"]] = index.get(c["doc"], -1) + 1
        record = given.get((c["doc"], i), given.get((c["doc"], c["name"])))
        if record is None:
            missing.append(f"{c['doc']} chunk {i} ({c['name']})")
            continue
        context = record.text
        if position:
            context = separated(record.text, c["text"], position)
            if context is None:
                raise InputError(f"{record.where}: field {fields['text']!r} does not {END[position]} the text of "
                                 f"document {c['doc']!r} chunk {i} ({c['name']}) (context_position {position}: "
                                 f"{ORDER[position]}, compared with every run of whitespace as one)")
            _check(context, record.where, checks)
        out[c["chunk_id"]] = context
    if missing:
        more = f" and {len(missing) - SHOWN_MISSING} more" if len(missing) > SHOWN_MISSING else ""
        raise InputError(f"{path}: no context for {len(missing)} of {len(chunks)} chunks: "
                         f"{', '.join(missing[:SHOWN_MISSING])}{more} (a record per chunk: its document id, "
                         f"its chunk index from 0 or chunk id, its context)")
    return out


class GivenBackend(Backend):
    """A free backend answering each chunk with the context the file gives it."""
    name = "file"

    def __init__(self, path: str, contexts: dict[str, str]):
        self.path, self.sha256, self.contexts = path, sha256_file(path), contexts

    def identity(self) -> dict:
        return {"backend": self.name, "file_sha256": self.sha256}

    def call(self, system: str, user: str, doc: dict, chunk: dict) -> CallResult:
        context = self.contexts[chunk["chunk_id"]]
        return CallResult(context=context, raw={"result": context, "file": self.path}, usage=zero_usage(),
                          cost_usd=0.0, model="file", duration_ms=0, num_turns=0)
