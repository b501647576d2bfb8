"""Question sets: every set, of any format, read and checked into question records.

A question is `{id, question}` and exactly one kind of gold:
- passage: `gold_passage`, one passage copied from its document or a list of them (every chunk
  holding a passage is gold), matched after ctxret.text.passages' normalisation; its document is
  `gold_slug` or `gold_doc` (its own id, `guides/setup.md`), else the one document holding it;
- chunk: `gold_chunks`, a list of the corpus's own chunk ids (format chunked), and optionally
  `gold_slug`, the document they must belong to;
- doc: `gold_docs`, a list of document slugs (or own ids), or {slug: grade} with grades >= 1;
- any: `gold_any`, alternatives of which any one counts (one unit): a passage (a string), a
  `{"chunk": id}` or a `{"doc": id}`;
- none, in a judged set only (its `judge` settings: ctxret.evaluation.judgments): relevance comes
  from the LLM's judgments of the pooled runs, after the search.
The documents named are looked up in the kept corpus as the sets are read (ctxret.questions.gold).
A flat list needs every id (each is a unit); `gold_chunks` and `gold_docs` may instead be a list of
groups (lists of ids): every group is a unit, satisfied by any of its members.
Optional: `key_terms` (gap sets), `cluster` (its bootstrap cluster; else from the id by
questions.cluster_key). A question is its id: ids are unique across sets and contain no
whitespace (a set without ids names its questions `<set>:<line>`, each its own cluster:
importers.rows); questions sharing a text are each scored with their own gold (the questions log
names them); an imported set drops a question repeating both the text and the gold of another.
Chunk gold may also be given as [document id, chunk index or chunk id] pairs
(`gold_chunk_pairs`), read as `gold_chunks` (importers.chunkpairs); a set's `columns` map other
field names (a JSONL set's too: importers.jsonl).

The canonical form (`canonical_lines`) is one spelling per question, whatever the file's
formatting; a set's `fingerprint` (computed when the workflow is parsed, which reads and checks
every set once: `read_question_sets`) changes with what its questions say, not with a touch or a
reformatting.
"""
from __future__ import annotations

import re
from pathlib import Path

from ctxret.errors import InputError
from ctxret.fileio import canonical_json, iter_jsonl, read_json, sha256_file, sha256_text
from ctxret.importers import corpus_files, gold_of, location, read_set, set_files
from ctxret.importers.selection import READER, imported_corpus, kept
from ctxret.questions.gold import locate_gold
from ctxret.store import JsonStore, content_key, file_states

GOLD_FIELDS = ("gold_passage", "gold_chunks", "gold_docs", "gold_any")
KINDS = {"gold_passage": "passage", "gold_chunks": "chunk", "gold_docs": "doc", "gold_any": "any"}
CANONICAL = ("id", "set", "question", "gold_slug", "gold_passage", "gold_chunks", "gold_docs", "gold_any",
             "key_terms", "cluster", "file")


def _strings(value, where: str, field: str, may_be_empty: bool = False) -> list[str]:
    if (not isinstance(value, list) or not (value or may_be_empty)
            or not all(isinstance(x, str) and x.strip() for x in value)):
        raise InputError(f"{where}: field {field!r} must be a {'' if may_be_empty else 'non-empty '}"
                         f"list of non-empty strings")
    return value


def _groups(value, where: str, field: str) -> bool:
    """Whether `value` is gold in groups (a list of lists: every group needed, any member satisfies
    it); a list mixing ids and groups, or an empty group, is an error."""
    if not isinstance(value, list) or not any(isinstance(x, list) for x in value):
        return False
    if not all(isinstance(x, list) for x in value):
        raise InputError(f"{where}: field {field!r} mixes ids and groups (lists of ids); give one or the other")
    if not all(group and all(isinstance(x, str) and x.strip() for x in group) for group in value):
        raise InputError(f"{where}: field {field!r}: every group must be a non-empty list of non-empty strings")
    return True


def gold_groups(gold) -> list[list[str]]:
    """Gold ids as groups: a flat list or {id: grade} is a group per id (every one needed)."""
    return [list(g) for g in gold] if gold and all(isinstance(g, list) for g in gold) else [[g] for g in gold]


def gold_kind(question: dict) -> str:
    """passage, chunk, doc, or none (a judged set's question without gold)."""
    return next((KINDS[f] for f in GOLD_FIELDS if f in question), "none")


def validate(obj: dict, set_name: str, where: str, judged: bool = False) -> dict:
    """One question record in canonical form (fields it does not use are absent); a judged set's
    question may have no gold."""
    for field in ("id", "question"):
        if not isinstance(obj.get(field), str) or not obj[field].strip():
            raise InputError(f"{where}: field {field!r} is missing or empty")
    if re.search(r"\s", obj["id"]):
        raise InputError(f"{where}: id {obj['id']!r} contains whitespace")
    given = [f for f in GOLD_FIELDS if f in obj]
    if not given and judged and "gold_slug" not in obj:
        return {"id": obj["id"], "set": set_name, "question": obj["question"], "key_terms": [],
                **({"cluster": cluster(obj, where)} if "cluster" in obj else {}),
                "file": str(Path(obj["file"])), "line": obj["line"]}
    if len(given) != 1:
        raise InputError(f"{where}: give exactly one of {', '.join(GOLD_FIELDS)} "
                         f"({'none' if not given else ' and '.join(given)} given)")
    named = [f for f in ("gold_slug", "gold_doc") if f in obj]
    if len(named) > 1:
        raise InputError(f"{where}: gold_slug and gold_doc given: name the document once")
    if named and given == ["gold_docs"]:
        raise InputError(f"{where}: {named[0]} and gold_docs given: {named[0]} is a passage's or chunks' document; "
                         f"for document gold list the documents in gold_docs alone, for a passage give "
                         f"gold_passage instead of gold_docs")
    q = {"id": obj["id"], "set": set_name, "question": obj["question"]}
    if named:
        if not isinstance(obj[named[0]], str) or not obj[named[0]].strip():
            raise InputError(f"{where}: field {named[0]!r} is missing or empty")
        q[named[0]] = obj[named[0]]
    field, value = given[0], obj[given[0]]
    if field == "gold_passage":
        if isinstance(value, str) and not value.strip():
            raise InputError(f"{where}: field 'gold_passage' is missing or empty")
        if not isinstance(value, str):
            _strings(value, where, field)
    elif field == "gold_chunks":
        if not _groups(value, where, field):
            _strings(value, where, field)
    elif field == "gold_any":
        if not isinstance(value, list) or not value or not all(_alternative(a) for a in value):
            raise InputError(f"{where}: field 'gold_any' must be a non-empty list of alternatives, each a passage "
                             f'(a string), {{"chunk": id}} or {{"doc": id}}')
    elif not _groups(value, where, field):
        if isinstance(value, list):
            value = {d: 1 for d in _strings(value, where, field)}
        if (not isinstance(value, dict) or not value
                or not all(isinstance(g, int) and not isinstance(g, bool) and g >= 1 for g in value.values())):
            raise InputError(f"{where}: field 'gold_docs' must be a list of document slugs or "
                             f"{{slug: grade >= 1}}")
    q[field] = value
    q["key_terms"] = _strings(obj.get("key_terms", []), where, "key_terms", may_be_empty=True)
    if "cluster" in obj:
        q["cluster"] = cluster(obj, where)
    q["file"] = str(Path(obj["file"]))
    q["line"] = obj["line"]
    return q


def _alternative(a) -> bool:
    """One alternative of gold_any: a passage, {"chunk": id} or {"doc": id}."""
    ok = lambda v: isinstance(v, str) and bool(v.strip())  # noqa: E731
    return ok(a) or (isinstance(a, dict) and len(a) == 1 and next(iter(a)) in ("chunk", "doc") and ok(*a.values()))


def cluster(obj: dict, where: str) -> str:
    if not isinstance(obj["cluster"], str) or not obj["cluster"].strip():
        raise InputError(f"{where}: field 'cluster' must be a non-empty string")
    return obj["cluster"]


def load_question_sets(sets: dict[str, dict], corpus: dict | None = None) -> tuple[list[dict], dict[str, list[str]]]:
    """Every question of every set, in config order, each with its set, file and line; and
    each set's import report lines."""
    out: list[dict] = []
    reports: dict[str, list[str]] = {}
    seen: dict[str, str] = {}
    for set_name, spec in sets.items():
        rows, reports[set_name] = read_set(set_name, spec, corpus or {})
        if not rows:
            raise InputError(f"{', '.join(set_files(spec, corpus or {}))}: question set {set_name!r} is empty")
        for row in rows:
            where = location(row)
            q = validate(row, set_name, where, "judge" in spec)
            if q["id"] in seen:
                raise InputError(f"{where}: duplicate question id {q['id']!r} (first at {seen[q['id']]})")
            seen[q["id"]] = where
            out.append(q)
    for set_name, line in shared_texts(out):
        reports[set_name].append(line)
    return out, reports


def shared_texts(questions: list[dict]) -> list[tuple[str, str]]:
    """(set, report line) naming questions that share a text: each is a question of its own
    (questions are their ids), scored with its own gold; the line goes to the last one's set."""
    by_text: dict[str, list[dict]] = {}
    for q in questions:
        by_text.setdefault(q["question"], []).append(q)
    lines = []
    for same in (qs for qs in by_text.values() if len(qs) > 1):
        other = len({gold_of(q) for q in same}) > 1
        ids = ", ".join(q["id"] if q["set"] == same[-1]["set"] else f"{q['id']} (set {q['set']})" for q in same)
        lines.append((same[-1]["set"], f"questions {ids} share one text, "
                                       f"{'each with its own gold' if other else 'with the same gold'}: each is scored"))
    return lines


def canonical_lines(questions: list[dict], marks: tuple[str, ...] = ()) -> str:
    """The canonical text of questions: what they say, not where or how it is spelled; `marks`,
    fields written beside it (questions.jsonl's `generated`), are outside what a question says."""
    return "".join(canonical_json({k: q[k] for k in (*CANONICAL, *marks) if k in q}) + "\n" for q in questions)


def content_sha256(questions: list[dict], set_name: str) -> str:
    """A set's content hash: equal for any reformatting of its file."""
    return sha256_text(canonical_lines([q for q in questions if q["set"] == set_name]))


def read_question_sets(sets: dict[str, dict], corpus: dict,
                       store: str) -> tuple[list[dict], dict[str, list[str]], list[str]]:
    """`load_question_sets`, their gold looked up in the kept corpus (questions.gold: the
    questions, the report lines and one line per gold not found), read once for each state of the
    sets' files: kept in the store under the sets' settings and the states of their files and the
    corpus's (store.file_states), so that the workflow's parse reads (and checks) every set and the
    questions stage takes them from there instead of reading them again. A generated set not
    written yet is left out (only make generate-questions reads the workflow then)."""
    ready = {name: spec for name, spec in sets.items() if not not_generated_yet(spec)}
    # the corpus's files too: gold is looked up in its documents
    files = [*(f for spec in ready.values() for f in set_files(spec, corpus)), *(corpus_files(corpus) if corpus else [])]
    def read() -> dict:
        questions, reports = load_question_sets(ready, corpus)
        questions, problems = locate_gold(questions, kept(imported_corpus(corpus, store)[0], corpus)) if corpus else (
            questions, [])
        return {"questions": questions, "reports": reports, "problems": problems}
    key = content_key(sets=ready, corpus=corpus, files=file_states(files), reader=READER)
    found = JsonStore(store, "question-sets-read").remembered(key, read)
    return found["questions"], found["reports"], found["problems"]


def fingerprint(sets: dict[str, dict], corpus: dict, questions: list[dict]) -> dict[str, str]:
    """{set: hash}: a JSONL set's content hash, from its `questions` as read; an imported set
    hashes its settings and source files."""
    out = {name: content_sha256(questions, name) for name, spec in sets.items() if spec["format"] == "jsonl"}
    for name, spec in sets.items():
        if name not in out:
            files = [sha256_file(p) if Path(p).is_file() else "missing" for p in set_files(spec, corpus)]
            out[name] = sha256_text(canonical_json([spec, corpus, files]))
    return out


# What a generated set's questions depend on: the settings whose change asks for the set again
# (the budget, which may cut n; with n: auto, also the measure that sets n)
GENERATION_KEYS = ("n", "max_usd", "kinds", "takes", "seed", "prompts", "overlap_cap", "quote_chars",
                   "duplicate_cosine", "duplicate_similarity")
AUTO_KEYS = ("measure",)


def generation_settings(spec: dict) -> dict:
    g = spec["generate"]
    return {k: g[k] for k in (*GENERATION_KEYS, *(AUTO_KEYS if g["n"] == "auto" else ()))}


def generation_problem(spec: dict, record_path: str) -> str | None:
    """Why a generated set cannot be scored as it is (not written yet, or written with other
    settings), or None."""
    again = "run `make generate-questions` (with the same CONFIG; it pays for the questions) before the run"
    if not_generated_yet(spec) or not Path(record_path).is_file():
        return f"the generated set {spec['path']} is not written yet: {again}"
    was = read_json(record_path)["settings"]
    changed = [k for k, v in generation_settings(spec).items() if was.get(k) != v]
    return f"generate.{', '.join(changed)} changed since the set was generated: {again}" if changed else None


def not_generated_yet(spec: dict) -> bool:
    """A generated set whose file `make generate-questions` has not written yet."""
    return spec["format"] == "generated" and not Path(spec["path"]).is_file()


def where(question: dict) -> str:
    """`file:line` of a question in its source file as it is now (for messages)."""
    if question["file"].endswith(".jsonl"):
        try:
            for lineno, obj in iter_jsonl(question["file"]):
                if obj.get("id") == question["id"]:
                    return f"{question['file']}:{lineno}"
        except InputError:  # edited since: the file alone
            pass
        numbered = re.fullmatch(re.escape(question["set"]) + r":(\d+)", question["id"])
        if numbered:  # a set without ids names a question by its line
            return f"{question['file']}:{numbered[1]}"
    return location({"file": question["file"], "id": question["id"]})


def cluster_of(question: dict, pattern: str) -> str:
    """The bootstrap cluster of a question: its own `cluster`, else the part of its id matched
    by `pattern` (default: its number, so h07 and p07 pair)."""
    if question.get("cluster"):
        return question["cluster"]
    m = re.search(pattern, question["id"])
    return (m.group(0).lstrip("0") or "0") if m else question["id"]


def cluster_key_warning(questions: list[dict], pattern: str) -> dict | None:
    """A warning when the cluster key matches the id of none of the questions without their own
    `cluster`: each of them is then a cluster of its own."""
    keyed = [q for q in questions if not q.get("cluster")]
    if not keyed or any(re.search(pattern, q["id"]) for q in keyed):
        return None
    return {"kind": "cluster_key", "cluster_key": pattern, "n": len(keyed)}
