"""Contexts made elsewhere (a context variant's `file:`): a JSON Lines or parquet file, a record per
chunk naming its document (the document's own id, as outputs name it) and its chunk, an integer
(its index in the document, from 0) or a string (its chunk id, as outputs name it), and its
context; the field names are configurable (`fields`). Every context passes the checks a paid
reply passes (ctxret.contexts.replies); a record that cannot be read or fails a check stops the
run naming its file and line, and so does a chunk of the run that no record covers.

The contexts are written as a free backend's records (`GivenBackend`), so the variant, its
ledger and its lengths read them as they read X1's and A1's.
"""
from __future__ import annotations

from pathlib import Path

from ctxret.contexts.llm import Backend, CallResult
from ctxret.contexts.llm.base import zero_usage
from ctxret.contexts.replies import ReplyChecks
from ctxret.errors import InputError
from ctxret.fileio import iter_jsonl, sha256_file

SHOWN_MISSING = 10  # chunks named in the line that stops a run for chunks no record covers


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


def read_given(path: str, fields: dict, checks: ReplyChecks) -> dict[tuple[str, int | str], str]:
    """{(document id, chunk index or chunk id): context} of the file; InputError naming the file and
    line of a record without its fields, naming a chunk twice, or whose context fails a reply check."""
    found: dict[tuple[str, int | str], str] = {}
    for where, row in _rows(path):
        missing = [f for f in (fields["doc"], fields["chunk"], fields["context"]) if row.get(f) is None]
        if missing:
            raise InputError(f"{where}: no field {', '.join(map(repr, missing))} (the fields of a record: "
                             f"{', '.join(map(repr, row))}; map yours in fields)")
        doc, chunk, context = row[fields["doc"]], row[fields["chunk"]], row[fields["context"]]
        if not (isinstance(chunk, int) and not isinstance(chunk, bool) and chunk >= 0) and \
                not (isinstance(chunk, str) and chunk.strip()):
            raise InputError(f"{where}: field {fields['chunk']!r} must be a chunk index (an integer from 0) or a "
                             f"chunk id (a string), got {chunk!r}")
        if not isinstance(context, str):
            raise InputError(f"{where}: field {fields['context']!r} must be a string, got {type(context).__name__}")
        problem = checks.problem(context.strip())
        if problem is not None:
            raise InputError(f"{where}: the context fails the reply checks ({problem[0]}: {problem[1]})")
        key = (str(doc), chunk)
        if key in found:
            raise InputError(f"{where}: document {key[0]!r} chunk {chunk!r} has a context already")
        found[key] = context.strip()
    return found


def covering(given: dict[tuple[str, int | str], str], chunks: list[dict], path: str) -> dict[str, str]:
    """{chunk_id: context} of every chunk (records in corpus order, each with its `doc` and `name`);
    InputError naming the chunks no record covers."""
    out, missing, index = {}, [], {}
    for c in chunks:
        i = index[c["doc"]] = index.get(c["doc"], -1) + 1
        context = given.get((c["doc"], i), given.get((c["doc"], c["name"])))
        if context is None:
            missing.append(f"{c['doc']} chunk {i} ({c['name']})")
        else:
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
