"""Run files: one line per question `{qid, ids, scores}` (internal chunk ids, the short key) plus
the TREC run format and qrels, which name chunks and documents by the user's own ids."""
from __future__ import annotations

import re
from collections.abc import Container, Iterable

from ctxret.errors import InputError
from ctxret.evaluation.metrics import chunk_grades
from ctxret.fileio import iter_jsonl, write_jsonl, write_text


def write_run(jsonl_path: str, trec_path: str, name: str, results: dict[str, list[tuple[str, float]]],
              names: dict[str, str] | None = None) -> None:
    """The run as JSON Lines (chunk ids and scores) and in the TREC format, its chunks under
    `names` (chunk id -> the user's name, `chunk_names`) when given."""
    write_jsonl(jsonl_path, ({"qid": q, "ids": [c for c, _ in r], "scores": [s for _, s in r]}
                             for q, r in results.items()))
    name_of = names.__getitem__ if names is not None else str
    write_text(trec_path, trec_text(name, {q: [name_of(c) for c, _ in r] for q, r in results.items()}))


def chunk_names(chunks: Iterable[dict]) -> dict[str, str]:
    """{chunk id: the name TREC files give it}: its `name` (ctxret.chunkers.corpus.name_chunks)."""
    return trec_names((c["chunk_id"], c["name"]) for c in chunks)


def doc_names(chunks: Iterable[dict]) -> dict[str, str]:
    """{slug: the name TREC files give its document}: the document's own id (`doc`)."""
    return trec_names({c["slug"]: c["doc"] for c in chunks}.items())


def trec_names(named: Iterable[tuple[str, str]]) -> dict[str, str]:
    """{key: its name as a TREC file can hold it}: TREC files split on whitespace, so each run of
    it becomes `_`; a name that would then be another's gets `~<key>`, so no two ids become one."""
    named = list(named)
    out, taken = {}, {name for _, name in named}   # the own names, unique, keep themselves
    for key, name in named:
        safe = re.sub(r"\s+", "_", name.strip()) or "_"
        if safe != name:
            safe = f"{safe}~{key}" if safe in taken else safe
            taken.add(safe)
        out[key] = safe
    return out


def id_map(chunks: list[dict]) -> dict[str, dict[str, str]]:
    """runs/ids.json: each name the TREC files write for a chunk or a document whose own id they
    cannot hold (whitespace in it), with that id: {"chunks": {name: id}, "docs": {name: id}}."""
    own_chunk = {c["chunk_id"]: c["name"] for c in chunks}
    own_doc = {c["slug"]: c["doc"] for c in chunks}
    return {"chunks": {t: own_chunk[k] for k, t in chunk_names(chunks).items() if t != own_chunk[k]},
            "docs": {t: own_doc[k] for k, t in doc_names(chunks).items() if t != own_doc[k]}}


def trec_text(name: str, ranked: dict[str, list[str]]) -> str:
    """A TREC run whose score column is n - rank + 1 for a list of n: trec_eval orders by that
    score, so it evaluates exactly the run's order whatever its own tie rule (it breaks equal
    scores by document id, descending); the real scores are in the JSON Lines run."""
    return "".join(f"{q} Q0 {c} {rank} {len(ids) - rank + 1} {name}\n"
                   for q, ids in ranked.items() for rank, c in enumerate(ids, 1))


def read_run(path: str, known: Container[str] | None = None,
             questions: Iterable[str] = ()) -> dict[str, list[str]]:
    """{qid: ranked chunk ids}; with `known`, a chunk id outside it is an error at its line; every
    one of `questions` must have exactly one line (a run cut short, or a line repeated, is never scored)."""
    out, where = {}, {}
    for lineno, r in iter_jsonl(path):
        ids = r.get("ids")
        if not isinstance(r.get("qid"), str) or not isinstance(ids, list):
            raise InputError(f"{path}:{lineno}: expected {{\"qid\": str, \"ids\": [...]}}")
        if known is not None:
            unknown = [c for c in ids if c not in known]
            if unknown:
                raise InputError(f"{path}:{lineno}: chunk ids not in chunks.jsonl: {unknown[:3]}")
        if r["qid"] in where:
            raise InputError(f"{path}:{lineno}: question {r['qid']} again (first at line {where[r['qid']]})")
        out[r["qid"]], where[r["qid"]] = ids, lineno
    missing = [q for q in questions if q not in out]
    if missing:
        raise InputError(f"{path}: no line for {len(missing)} question(s) ({', '.join(missing[:3])}…): the run "
                         f"is incomplete (cut short?); run again: its search writes it again")
    return out


def qrels_text(gold: dict[str, dict], names: dict[str, str]) -> str:
    """TREC qrels (`qid 0 chunk grade`, the chunk by its name): every gold chunk of every scorable
    question, with its unit's grade (1 for passages and chunk ids; the judged grade for documents)."""
    return "".join(f"{q} 0 {names[c]} {grade}\n" for q, g in gold.items() for c, grade in chunk_grades(g).items())
