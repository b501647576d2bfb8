"""qcheck: each question's gold units and the chunks that satisfy them.

A question's gold is a list of units, each satisfied by a set of chunks:
- passage: each passage is a unit; its chunks are those of the gold document whose T1 text
  holds the whole passage (several when chunks overlap or a passage repeats): verbatim, else after
  ctxret.text.passages' normalisation (a passage found verbatim keeps exactly those chunks);
- chunk: each gold chunk id is a unit; its chunk is the one whose representative unit it is
  (with the `given` chunker, the corpus's own chunk);
- doc: each gold document is a unit (with its grade); its chunks are all of the document's;
- gold in groups (chunk or doc ids): each group is a unit, its chunks every member's;
- any (gold_any): one unit, its chunks every alternative's (a passage's, a chunk's, a document's).
A question is scorable when every unit has a chunk. A judged set's question without gold has
none to locate (kind none): its relevance comes from the judge stage, after the search.
Reported per set and kind: the problems (gold document missing, passage missing, passage across
a chunk boundary, unknown chunk id, chunk outside its document), several gold chunks, and for
gap sets whether the key terms sit outside the gold chunk.
"""
from collections import defaultdict

from ctxret.errors import InputError
from ctxret.fileio import iter_jsonl, read_jsonl, write_json
from ctxret.questions.sets import gold_groups, gold_kind, where
from ctxret.runtime.stage_runner import run_rule
from ctxret.text.chunk_text import prompt_chunk
from ctxret.text.passages import holds, readings

LABELS = {"missing_doc": "gold document missing", "missing_passage": "passage missing",
          "across_boundary": "passage across a chunk boundary", "missing_chunk": "unknown chunk id",
          "chunk_elsewhere": "chunk not in its document", "unit_split": "gold chunk split across chunks"}
PROBLEMS = {"passage": ("missing_doc", "missing_passage", "across_boundary"),
            "chunk": ("missing_doc", "missing_chunk", "chunk_elsewhere", "unit_split"),
            "doc": ("missing_doc",),
            "any": ("missing_doc", "missing_passage", "across_boundary", "missing_chunk", "unit_split"), "none": ()}


class Corpus:
    """What the checks look up, read from the files a row at a time: every document's slug and
    units; the chunk ids of each document and unit; which chunks of its document hold each gold
    passage (and, for a passage none holds, whether the document's body does); and which key
    terms of the gap-set questions each chunk of their documents holds. No body or chunk text is
    kept, so the stage holds the questions and the chunk ids, whatever the corpus's size."""

    def __init__(self, docs: str, chunks: str, questions: list[dict], gap_sets: list[str]):
        passages, terms = defaultdict(set), defaultdict(set)   # slug -> what its chunks are searched for
        for q in questions:
            slug = q.get("gold_slug")
            for place, passage in _passages(q):
                passages[place].add(passage)
            if slug is not None and q["set"] in gap_sets:
                terms[slug].update(q.get("key_terms") or [])
        self.slugs: set[str] = set()
        self.unit_doc: dict[str, str] = {}
        for _, d in iter_jsonl(docs):
            self.slugs.add(d["slug"])
            self.unit_doc.update((u["id"], d["slug"]) for u in d.get("units", []))
        self.ids_of: dict[str, list[str]] = defaultdict(list)
        self.by_unit: dict[str, list[str]] = defaultdict(list)
        self.holding: dict[tuple[str, str], list[str]] = defaultdict(list)  # (slug, passage) -> chunk ids
        normalised: dict[tuple[str, str], list[str]] = defaultdict(list)    # ... holding it once normalised
        self.terms_in: dict[str, set[str]] = {}                            # chunk id -> key terms it holds
        for _, c in iter_jsonl(chunks):
            slug = c["slug"]
            self.ids_of[slug].append(c["chunk_id"])
            if "unit" in c:
                self.by_unit[c["unit"]].append(c["chunk_id"])
            if slug in passages or slug in terms:
                text = prompt_chunk(c)
                read = None   # the text normalised, once a passage is not in it verbatim
                for passage in passages.get(slug, ()):
                    if passage in text:
                        self.holding[(slug, passage)].append(c["chunk_id"])
                        continue
                    read = read or readings(text)
                    if holds(read, passage):
                        normalised[(slug, passage)].append(c["chunk_id"])
                held = {t for t in terms.get(slug, ()) if t in text}
                if held:
                    self.terms_in[c["chunk_id"]] = held
        for place, ids in normalised.items():
            self.holding.setdefault(place, ids)
        unheld = {slug: [p for p in ps if (slug, p) not in self.holding] for slug, ps in passages.items()}
        self.in_body: set[tuple[str, str]] = set()
        if any(unheld.values()):
            for _, d in iter_jsonl(docs):
                body = readings(d["body"]) if unheld.get(d["slug"]) else ()
                self.in_body.update((d["slug"], p) for p in unheld.get(d["slug"], ()) if holds(body, p))


def _passages(question: dict) -> list[tuple[str, str]]:
    """(document, passage) of every passage of a question's gold whose document is known."""
    if "gold_any" in question:
        return [(a["slug"], a["passage"]) for a in question["gold_any"] if "passage" in a and a["slug"]]
    if "gold_passage" not in question or question.get("gold_slug") is None:
        return []
    passages = question["gold_passage"]
    return [(question["gold_slug"], p) for p in ([passages] if isinstance(passages, str) else passages)]


def passage_unit(passage: str, slug: str, corpus: Corpus) -> tuple[str, list[str]]:
    gold = corpus.holding.get((slug, passage), [])
    if gold:
        return "ok", list(gold)
    return ("across_boundary" if (slug, passage) in corpus.in_body else "missing_passage"), []


def any_unit(alternative: dict, corpus: Corpus) -> tuple[str, list[str]]:
    """One alternative of gold_any: a passage in its document, a chunk, a document."""
    if "chunk" in alternative:
        return chunk_unit(alternative["chunk"], None, corpus)
    slug = alternative.get("slug") or alternative.get("doc")
    if slug not in corpus.slugs:
        return "missing_passage" if slug is None else "missing_doc", []
    return passage_unit(alternative["passage"], slug, corpus) if "passage" in alternative else doc_unit(slug, corpus)


def chunk_unit(unit: str, slug: str | None, corpus: Corpus) -> tuple[str, list[str]]:
    if unit not in corpus.unit_doc:
        return "missing_chunk", []
    if slug is not None and corpus.unit_doc[unit] != slug:
        return "chunk_elsewhere", []
    return ("ok", corpus.by_unit[unit]) if corpus.by_unit[unit] else ("unit_split", [])


def doc_unit(slug: str, corpus: Corpus) -> tuple[str, list[str]]:
    return ("ok", list(corpus.ids_of[slug])) if slug in corpus.slugs else ("missing_doc", [])


def group_unit(members: list[tuple[str, list[str]]]) -> tuple[str, list[str]]:
    """A group of gold ids as one unit: its chunks are every member's; a member that cannot be
    located is reported (the first problem), as for a unit of its own."""
    status = next((s for s, _ in members if s != "ok"), "ok")
    return status, list(dict.fromkeys(c for _, chunks in members for c in chunks))


def locate(question: dict, corpus: Corpus) -> dict:
    """{kind, status, units: [{id, chunks, grade}], gold_chunks, gold_slugs} for one question."""
    kind, slug = gold_kind(question), question.get("gold_slug")
    if kind == "none":
        return {"kind": kind, "status": "ok", "units": [], "gold_chunks": [], "gold_slugs": []}
    if kind == "any":
        alternatives = question["gold_any"]
        found = [("any", group_unit([any_unit(a, corpus) for a in alternatives]), 1)]
        slugs = list(dict.fromkeys(s for a in alternatives for s in [a.get("slug") or a.get("doc")
                                                                       or corpus.unit_doc.get(a.get("chunk"))] if s))
    elif kind == "doc":
        grades = question["gold_docs"]
        grade = grades.get if isinstance(grades, dict) else lambda _: 1
        found = [("|".join(g), group_unit([doc_unit(d, corpus) for d in g]), max(map(grade, g)))
                 for g in gold_groups(grades)]
        slugs = [d for g in gold_groups(grades) for d in g]
    elif slug is not None and slug not in corpus.slugs:
        found, slugs = [("-", ("missing_doc", []), 1)], [slug]
    elif kind == "passage":
        passages = question["gold_passage"]
        found = [(f"passage {i}", passage_unit(p, slug, corpus), 1)
                 for i, p in enumerate([passages] if isinstance(passages, str) else passages, 1)]
        slugs = [slug] if slug is not None else []
    else:
        groups = gold_groups(question["gold_chunks"])
        found = [("|".join(g), group_unit([chunk_unit(u, slug, corpus) for u in g]), 1) for g in groups]
        slugs = list(dict.fromkeys(corpus.unit_doc[u] for g in groups for u in g if u in corpus.unit_doc))
    status = next((s for _, (s, _), _ in found if s != "ok"), "ok")
    units = [{"id": uid, "chunks": ids, "grade": grade} for uid, (_, ids), grade in found]
    gold = {c for u in units for c in u["chunks"]} if status == "ok" else set()
    return {"kind": kind, "status": status, "units": units, "gold_chunks": sorted(gold),
            "gold_slugs": slugs}


def gap_violation(question: dict, gold_chunks: list[str], corpus: Corpus) -> str | None:
    """Why a gap question fails its automatic check, or None."""
    terms = question["key_terms"]
    if not terms:
        return "no key_terms given"
    of_doc = corpus.ids_of.get(question.get("gold_slug"), [])
    held = {cid: corpus.terms_in.get(cid, set()) for cid in of_doc}
    in_gold = [t for t in terms if any(t in held[g] for g in gold_chunks if g in held)]
    if in_gold:
        return f"gold chunk contains {in_gold}"
    if not any(t in found for cid, found in held.items() if cid not in gold_chunks for t in terms):
        return "no other chunk of the document contains the key terms"
    return None


def check(questions: list[dict], docs: str, chunks: str, gap_sets: list[str]) -> dict:
    """{question id: what `locate` found}, reading the docs and chunks files (paths) as it goes."""
    corpus = Corpus(docs, chunks, questions, gap_sets)
    results = {}
    for q in questions:
        found = locate(q, corpus)
        if q["set"] in gap_sets and found["status"] == "ok":
            found["gap_violation"] = gap_violation(q, found["gold_chunks"], corpus)
        results[q["id"]] = found
    return results


def summary_lines(questions: list[dict], results: dict, gap_sets: list[str]) -> list[str]:
    lines = []
    for set_name, kind in dict.fromkeys((q["set"], results[q["id"]]["kind"]) for q in questions):
        qs = [q for q in questions if q["set"] == set_name and results[q["id"]]["kind"] == kind]
        if kind == "none":
            lines.append(f"{set_name} {len(qs)} (no gold: relevance judged after the search)")
            continue
        ids = {p: [q["id"] for q in qs if results[q["id"]]["status"] == p] for p in PROBLEMS[kind]}
        several = [q["id"] for q in qs if len(results[q["id"]]["gold_chunks"]) > 1]
        problems = ", ".join(f"{LABELS[p]} {len(v)}" + (f" {v}" if p in ("across_boundary", "unit_split") else "")
                             for p, v in ids.items())
        lines.append(f"{set_name} {len(qs)} ({kind} gold): {problems}, several gold chunks {len(several)} "
                     + (str(several) if kind != "doc" else f"(mean units {_mean_units(qs, results):.2f})"))
    gap = [q for q in questions if q["set"] in gap_sets and results[q["id"]].get("gap_violation")]
    lines.append(f"gap-set automatic check violations {len(gap)}"
                 + "".join(f"\n  {q['id']}: {results[q['id']]['gap_violation']}" for q in gap))
    return lines


def _mean_units(qs: list[dict], results: dict) -> float:
    return sum(len(results[q["id"]]["units"]) for q in qs) / len(qs)


def qcheck(input, output, params, **_) -> None:
    questions = read_jsonl(input.questions)
    results = check(questions, input.docs, input.chunks, list(params.gap_sets))
    for line in summary_lines(questions, results, list(params.gap_sets)):
        print(line)
    bad = [q for q in questions if results[q["id"]]["status"] != "ok"]
    if bad and params.strict:
        raise InputError("questions without a gold chunk for every gold unit:\n" + "\n".join(
            f"  {where(q)}: {q['id']}: {LABELS[results[q['id']]['status']]}" for q in bad))
    gold = {}
    for q in questions:
        r = results[q["id"]]
        gold[q["id"]] = {"set": q["set"], "generated": q["generated"], "question": q["question"],
                         "gold_slug": next(iter(r["gold_slugs"]), None),
                         **r, **({"cluster": q["cluster"]} if "cluster" in q else {})}
    write_json(output.gold, {"questions": gold})


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
