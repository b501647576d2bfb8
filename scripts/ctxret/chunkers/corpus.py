"""A corpus cut into chunks by one strategy, each chunk an exact character span of its document,
numbered in corpus order and named (`chunk_rows`): what the chunks stage writes, and what the
workflow's parse cuts to check a context file covers every chunk (ctxret.config.preflight).

Every chunk names the units it covers (`units`) and its representative unit (`unit`): the one
covering most of its characters, the earlier one on a tie (units: ctxret.text.documents.units_of);
`doc` and `name` are the user's ids of its document and of itself (`name_chunks`).
"""
from collections import Counter
from typing import Iterable, Iterator

from ctxret.chunkers import Tools, spans
from ctxret.fileio import sha256_text
from ctxret.text.documents import own_id, units_of


def covered_units(units: list[dict], start: int, end: int) -> tuple[str, list[str]]:
    """(representative unit id, ids of every unit overlapping [start, end)): the representative
    covers most characters of the span; on a tie the earlier unit wins."""
    overlap = [(min(end, u["end"]) - max(start, u["start"]), u["id"]) for u in units]
    overlap = [(n, uid) for n, uid in overlap if n > 0]
    best = max(overlap, key=lambda o: o[0])  # max() keeps the first of equals
    return best[1], [uid for _, uid in overlap]


def chunk_rows(docs: list[dict], settings: dict, chunker: str, tools: Tools | None = None) -> Iterator[dict]:
    """Chunks of every document, numbered in order (ids are stable for a given docs.jsonl), made
    one at a time from the documents' spans. `settings` holds what the chunker reads (its own
    section of chunking, and its model's)."""
    cut = [(doc, span) for doc in docs for span in spans(doc, chunker, settings, tools or Tools())]
    width = max(5, len(str(len(cut) - 1)))
    units = {doc["slug"]: units_of(doc) for doc in docs}

    def rows():
        for i, (doc, span) in enumerate(cut):
            text = doc["body"][span["start"]:span["end"]]
            unit, covered = covered_units(units[doc["slug"]], span["start"], span["end"])
            yield {"chunk_id": f"{i:0{width}d}", "slug": doc["slug"], "title": doc["title"],
                   "section": span["section"], "start": span["start"], "end": span["end"],
                   "text": text, "key": sha256_text(doc["slug"] + "\n" + text), "unit": unit, "units": covered}
    return name_chunks(docs, rows())


def chunk_corpus(docs: list[dict], settings: dict, chunker: str, tools: Tools | None = None) -> list[dict]:
    """Every chunk of `chunk_rows`, as a list."""
    return list(chunk_rows(docs, settings, chunker, tools))


def name_chunks(docs: list[dict], chunks: Iterable[dict]) -> Iterator[dict]:
    """Each chunk's `doc` (its document's own id, as the source gives it: else the slug) and
    `name`, what the explorer, the flip lists and (whitespace as `_`: ctxret.retrieval.runs) the
    TREC files call it: the source's own unit when the chunk is exactly one (a given chunk's id,
    a SQuAD paragraph), the document's id when it is the whole document, else `<doc>#<n>`, its
    n-th chunk (the internal chunk_id stays the runs' short key); a name another chunk already
    has gets `~<chunk_id>`. Each chunk is named as it passes."""
    by_slug = {d["slug"]: d for d in docs}
    spans = {d["slug"]: {(u["start"], u["end"]): u["id"] for u in d.get("units", [])} for d in docs}
    n, taken = Counter(), set()
    for c in chunks:
        doc = by_slug[c["slug"]]
        c["doc"] = own_id(doc)
        n[c["slug"]] += 1
        whole = c["start"] == 0 and c["end"] == len(doc["body"])
        name = spans[c["slug"]].get((c["start"], c["end"])) or (c["doc"] if whole else f"{c['doc']}#{n[c['slug']]}")
        c["name"] = f"{name}~{c['chunk_id']}" if name in taken else name
        taken.add(c["name"])
        yield c
