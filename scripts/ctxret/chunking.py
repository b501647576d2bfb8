"""chunking: chunking strategies compared on one scale, T1 under each, the same questions.

Scoring that does not confuse "not found" with "not recognised". A question's gold units do not
depend on the strategy: a passage's units are the units of its document it overlaps (`## `
section, clause or source paragraph: ctxret.documents.units_of), chunk gold names units
itself, document gold is its documents. Every chunk has a representative unit, the unit
covering most of its characters (the earlier one on a tie; ctxret.chunks.covered_units).

- strict: a hit at k when a chunk of the top k has a gold unit as its representative;
- loose: when a chunk of the top k covers any gold unit (what the representative rule costs);
- passage (passage gold): when a chunk of the top k holds the whole passage, the experiment's
  own measure; the passages a strategy splits across chunks are listed, never dropped.

Each strategy is paired with the experiment's own chunker on strict hit@k, per retriever: one
family of comparisons, Holm-adjusted, no verdict.
"""
from __future__ import annotations

import statistics

from .documents import units_of
from .fileio import read_json, read_jsonl, write_json, write_text
from .paired import compare
from .figures import plot_chunking
from .questionset import cluster_of, gold_groups, gold_kind
from .runs import read_run
from .stats import holm
from .tables import markdown_table

NOTE = ("strict: a chunk of the top {k} has a gold unit (section, clause, source paragraph, given chunk or "
        "document) as its representative, the unit covering most of its characters; loose: a chunk of the "
        "top {k} covers any gold unit (what the representative rule costs); passage: a chunk of the top {k} "
        "holds the whole gold passage. crossing units: chunks covering more than one unit.")


def gold_units(question: dict, docs: dict[str, dict]) -> list[str]:
    """The units a question's gold names or (passages) falls in."""
    kind = gold_kind(question)
    if kind == "doc":
        return [d for g in gold_groups(question["gold_docs"]) for d in g]
    if kind == "chunk":
        return [u for g in gold_groups(question["gold_chunks"]) for u in g]
    doc = docs.get(question["gold_slug"])
    passages = question["gold_passage"]
    out = []
    for passage in [passages] if isinstance(passages, str) else passages:
        at = doc["body"].find(passage) if doc else -1
        if at >= 0:
            out += [u["id"] for u in units_of(doc) if u["start"] < at + len(passage) and u["end"] > at]
    return list(dict.fromkeys(out))


def unit_views(chunks: list[dict], kind: str) -> dict[str, tuple[str, set[str]]]:
    """{chunk id: (representative, covered)}: units, or documents for document gold."""
    if kind == "doc":
        return {c["chunk_id"]: (c["slug"], {c["slug"]}) for c in chunks}
    return {c["chunk_id"]: (c["unit"], set(c["units"])) for c in chunks}


def question_outcome(ranked: list[str], gold: set[str], views: dict, passage_chunks: set[str] | None,
                     k: int, mrr_k: int) -> dict:
    strict_rank = next((r for r, c in enumerate(ranked, 1) if views[c][0] in gold), None)
    return {f"hit@{k}": strict_rank is not None and strict_rank <= k, "rank": strict_rank,
            "rr": 1 / strict_rank if strict_rank and strict_rank <= mrr_k else 0.0,
            "loose": any(views[c][1] & gold for c in ranked[:k]),
            "passage": None if passage_chunks is None else bool(passage_chunks & set(ranked[:k]))}


def strategy_summary(chunks: list[dict]) -> dict:
    return {"count": len(chunks), "mean_chars": statistics.mean(len(c["text"]) for c in chunks),
            "crossing": sum(1 for c in chunks if len(c["units"]) > 1)}


def retriever_summary(outcomes: dict[str, dict], k: int) -> dict:
    n = len(outcomes)
    rows = list(outcomes.values())
    passages = [r["passage"] for r in rows if r["passage"] is not None]
    return {"N": n, "strict_hits": sum(r[f"hit@{k}"] for r in rows), "mrr": sum(r["rr"] for r in rows) / n,
            "loose_hits": sum(r["loose"] for r in rows),
            "passage_hits": sum(passages) if passages else None, "passage_N": len(passages)}


def audit_rows(qids: list[str], units: dict[str, list[str]], strategies: list[dict]) -> list[list[str]]:
    """Per question: its gold units and, per strategy, the chunks covering them (id:representative)."""
    return [[q, " ".join(units[q]), *(" ".join(f"{c['chunk_id']}:{c['unit']}" for c in s["chunks"]
                                               if set(c["units"]) & set(units[q]) or c["slug"] in units[q])
                                      for s in strategies)] for q in qids]


def table_rows(strategies: list[dict], k: int, mrr_k: int) -> tuple[list[str], list[list[str]]]:
    head = ["strategy", "chunks", "mean chars", "crossing units", "retriever", f"strict R@{k}", "hits",
            f"MRR@{mrr_k}", f"loose R@{k}", "hits", f"passage R@{k}", "split passages"]
    rows = []
    for s in strategies:
        for retriever, r in s["retrievers"].items():
            passage = (f"{r['passage_hits'] / r['passage_N']:.3f}" if r["passage_N"] else "-")
            rows.append([s["name"], str(s["count"]), f"{s['mean_chars']:.0f}", str(s["crossing"]), retriever,
                         f"{r['strict_hits'] / r['N']:.3f}", f"{r['strict_hits']}/{r['N']}", f"{r['mrr']:.3f}",
                         f"{r['loose_hits'] / r['N']:.3f}", f"{r['loose_hits']}/{r['N']}", passage,
                         str(len(s["split"]))])
    return head, rows


def pair_rows(comparisons: list[dict]) -> tuple[list[str], list[list[str]]]:
    return (["A", "B", "N", "fail A", "fail B", "only A", "only B", "B - A", "95 % interval", "p", "Holm p"],
            [[c["a"], c["b"], str(c["N"]), str(c["fail_a"]), str(c["fail_b"]), str(c["only_a"]), str(c["only_b"]),
              f"{c['diff']:+.3f}", f"[{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}]", f"{c['sign_p']:.3f}",
              f"{c['holm_p']:.3f}"] for c in comparisons])


def run(input, output, params, **_) -> None:
    docs = {d["slug"]: d for d in read_jsonl(input.docs)}
    questions = [q for q in read_jsonl(input.questions) if q["set"] in set(params.sets)]
    units = {q["id"]: gold_units(q, docs) for q in questions}
    questions = [q for q in questions if units[q["id"]]]
    qids = [q["id"] for q in questions]
    k, mrr_k = int(params.k), int(params.mrr_k)
    runs = iter(input.runs)
    strategies = []
    for spec, chunk_path, gold_path in zip(params.strategies, input.chunks, input.gold, strict=True):
        chunks = read_jsonl(chunk_path)
        gold = read_json(gold_path)["questions"]
        views = {kind: unit_views(chunks, kind) for kind in ("passage", "chunk", "doc")}
        outcomes = {}
        for retriever in spec["retrievers"]:
            run_ = read_run(next(runs))
            outcomes[retriever] = {q["id"]: question_outcome(
                run_.get(q["id"], []), set(units[q["id"]]), views[gold_kind(q)],
                set(gold[q["id"]]["gold_chunks"]) if gold_kind(q) == "passage" else None, k, mrr_k)
                for q in questions}
        strategies.append({"name": spec["name"], "variant": spec["variant"], "chunks": chunks,
                           **strategy_summary(chunks), "outcomes": outcomes,
                           "split": [q["id"] for q in questions if gold[q["id"]]["status"] == "across_boundary"],
                           "retrievers": {r: retriever_summary(o, k) for r, o in outcomes.items()}})
    clusters = {q["id"]: cluster_of(q, params.cluster_key) for q in questions}
    base = strategies[0]
    comparisons = [{"a": f"{r}:{base['name']}", "b": f"{r}:{s['name']}",
                    **compare(base["outcomes"][r], s["outcomes"][r], qids, k, clusters, int(params.seed),
                              int(params.resamples))}
                   for s in strategies[1:] for r in s["outcomes"] if r in base["outcomes"]]
    for c, adjusted in zip(comparisons, holm([c["sign_p"] for c in comparisons]), strict=True):
        c["holm_p"] = adjusted
    write_text(output.audit, "\t".join(["qid", "gold units", *(s["name"] for s in strategies)]) + "\n"
               + "".join("\t".join(row) + "\n" for row in audit_rows(qids, units, strategies)))
    for s in strategies:
        del s["chunks"], s["outcomes"]
    write_json(output.json, {"k": k, "mrr_k": mrr_k, "questions": len(qids), "sets": list(params.sets),
                             "strategies": strategies, "comparisons": comparisons})
    table = markdown_table(*table_rows(strategies, k, mrr_k))
    md = [f"# Chunking strategies, T1, {len(qids)} questions ({', '.join(params.sets)})", "", NOTE.format(k=k), "",
          table, ""]
    for s in strategies:
        md.append(f"- {s['name']}: passages split across chunks {len(s['split'])}" +
                  (f": {', '.join(s['split'])}" if s["split"] else ""))
    md += ["", f"## Each strategy against {base['name']} (strict hit@{k}; one family, Holm)", "",
           markdown_table(*pair_rows(comparisons)) if comparisons else "-"]
    write_text(output.md, "\n".join(md) + "\n")
    plot_chunking(strategies, k, output.plot)
    print(table)
