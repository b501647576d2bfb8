"""beir: a BEIR data set directory — `corpus.jsonl` ({_id, title, text, metadata}),
`queries.jsonl` ({_id, text}; other field names: corpus.columns) and `qrels/<split>.tsv`
(query-id, corpus-id, score; a header line).

Documents keep their id as slug when it is safe as a file name (else `safe_slug` of it, the
original id in `meta.id`). Questions are the queries with at least one judged document of
score > 0; their gold is every such document with its grade (graded relevance kept).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from ctxret.errors import InputError
from ctxret.fileio import iter_jsonl, read_text
from ctxret.text.documents import document, safe_slug, unique_slugs


def _text(obj: dict, key: str, where: str, required: bool = True) -> str:
    if required and key not in obj:
        raise InputError(f"{where}: no field {key!r} (fields: {', '.join(obj)})")
    value = obj.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise InputError(f"{where}: field {key!r} must be a non-empty string")
    return value


def read_corpus(directory: str, fields: dict) -> list[dict]:
    """`fields` maps id, text and title to the file's names (BEIR's: _id, text, title)."""
    path = Path(directory) / "corpus.jsonl"
    docs = []
    for lineno, obj in iter_jsonl(path):
        where = f"{path}:{lineno}"
        doc_id = _text(obj, fields["id"], where)
        body = _text(obj, fields["text"], where).strip()
        title = _text(obj, fields["title"], where, required=False).strip() if fields["title"] else ""
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        docs.append(document(safe_slug(doc_id), title, body, meta={"id": doc_id, **meta}))
    if not docs:
        raise InputError(f"{path}: the corpus is empty")
    unique_slugs(docs, str(path))
    return docs


def read_questions(directory: str, split: str, fields: dict) -> tuple[list[dict], Counter]:
    """The queries judged relevant to a document in the split's qrels, and how many of the other
    queries were left out and why; queries.jsonl's fields are named as the corpus's (id, text)."""
    root = Path(directory)
    queries_path, qrels_path = root / "queries.jsonl", root / "qrels" / f"{split}.tsv"
    queries = {}
    for lineno, obj in iter_jsonl(queries_path):
        qid = _text(obj, fields["id"], f"{queries_path}:{lineno}")
        if qid in queries:
            raise InputError(f"{queries_path}:{lineno}: duplicate query id {qid!r} (first at line {queries[qid][1]})")
        queries[qid] = (_text(obj, fields["text"], f"{queries_path}:{lineno}"), lineno)
    doc_ids = {obj.get(fields["id"]) for _, obj in iter_jsonl(root / "corpus.jsonl")}
    gold: dict[str, dict[str, int]] = {}
    judged: set[str] = set()
    first_line: dict[str, int] = {}
    for lineno, line in enumerate(read_text(qrels_path).splitlines(), 1):
        fields = line.split("\t")
        if not line.strip() or (lineno == 1 and fields[0] == "query-id"):
            continue
        where = f"{qrels_path}:{lineno}"
        if len(fields) != 3 or not fields[2].strip().lstrip("-").isdigit():
            raise InputError(f"{where}: expected query-id<TAB>corpus-id<TAB>integer score")
        qid, doc_id, grade = fields[0], fields[1], int(fields[2])
        if qid not in queries:
            raise InputError(f"{where}: query {qid!r} is not in {queries_path}")
        if doc_id not in doc_ids:
            raise InputError(f"{where}: document {doc_id!r} is not in {root / 'corpus.jsonl'}")
        judged.add(qid)
        if grade > 0:
            gold.setdefault(qid, {})[safe_slug(doc_id)] = grade
            first_line.setdefault(qid, lineno)
    if not gold:
        raise InputError(f"{qrels_path}: no judgement with a score above 0")
    left_out = Counter({f"not in the {split} qrels": len(queries) - len(judged),
                        "every judgement 0": len(judged) - len(gold)})
    return [{"id": qid, "question": queries[qid][0], "gold_docs": gold[qid],
             "file": str(qrels_path), "line": first_line[qid]} for qid in gold], +left_out
