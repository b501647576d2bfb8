"""chunking: chunking strategies compared on one scale, T1 under each, the same questions.

Scoring that does not confuse "not found" with "not recognised". A question's gold units do not
depend on the strategy: a passage's units are the units of its document it overlaps (`## `
section, clause or source paragraph: ctxret.text.documents.units_of), chunk gold names units
itself, document gold is its documents. Every chunk has a representative unit, the unit
covering most of its characters (the earlier one on a tie; ctxret.chunkers.corpus.covered_units).

- strict: a hit at k when a chunk of the top k has a gold unit as its representative;
- loose: when a chunk of the top k covers any gold unit (what the representative rule costs);
- passage (passage gold): when a chunk of the top k holds the whole passage, the experiment's
  own measure; the passages a strategy splits across chunks are listed, never dropped.

Each strategy is paired with the experiment's own chunker on strict hit@k, per retriever: one
family of comparisons, Holm-adjusted, no verdict.
"""
import statistics

from ctxret.evaluation.metrics import Judged, Measure, condition_name, gold_rank
from ctxret.evaluation.paired import compare
from ctxret.evaluation.stats import holm
from ctxret.fileio import read_json, read_jsonl, write_json, write_text
from ctxret.presentation.figures import plot_chunking
from ctxret.presentation.pages import chunking_markdown, chunking_rows, markdown_table
from ctxret.questions.sets import cluster_of, gold_groups, gold_kind
from ctxret.retrieval.runs import read_run
from ctxret.runtime.stage_runner import run_rule
from ctxret.text.documents import units_of


def gold_units(question: dict, docs: dict[str, dict]) -> list[str]:
    """The units a question's gold names or (passages) falls in (none for a judged set's question without gold)."""
    kind = gold_kind(question)
    if kind in ("none", "any"):   # gold_any: alternatives of several kinds, no one unit to compare
        return []
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
                     hit: Measure, rr: Measure) -> dict:
    """Strict hit and RR on the ranked chunks' representative units, loose and passage hits at hit's k."""
    strict = Judged([views[c][0] for c in ranked], gold, {})
    return {hit.name: hit.score(strict), "rank": gold_rank(strict.ranked, gold), "rr": rr.score(strict),
            "loose": any(views[c][1] & gold for c in ranked[:hit.k]),
            "passage": None if passage_chunks is None else bool(passage_chunks & set(ranked[:hit.k]))}


def strategy_summary(chunks: list[dict]) -> dict:
    return {"count": len(chunks), "mean_chars": statistics.mean(len(c["text"]) for c in chunks),
            "crossing": sum(1 for c in chunks if len(c["units"]) > 1)}


def retriever_summary(outcomes: dict[str, dict], hit: Measure) -> dict:
    n = len(outcomes)
    rows = list(outcomes.values())
    passages = [r["passage"] for r in rows if r["passage"] is not None]
    return {"N": n, "strict_hits": sum(r[hit.name] for r in rows), "mrr": sum(r["rr"] for r in rows) / n,
            "loose_hits": sum(r["loose"] for r in rows),
            "passage_hits": sum(passages) if passages else None, "passage_N": len(passages)}


def audit_rows(qids: list[str], units: dict[str, list[str]], strategies: list[dict]) -> list[list[str]]:
    """Per question: its gold units and, per strategy, the chunks covering them (id:representative)."""
    return [[q, " ".join(units[q]), *(" ".join(f"{c['chunk_id']}:{c['unit']}" for c in s["chunks"]
                                               if set(c["units"]) & set(units[q]) or c["slug"] in units[q])
                                      for s in strategies)] for q in qids]


def chunking(input, output, params, **_) -> None:
    docs = {d["slug"]: d for d in read_jsonl(input.docs)}
    questions = [q for q in read_jsonl(input.questions) if q["set"] in set(params.sets)]
    units = {q["id"]: gold_units(q, docs) for q in questions}
    questions = [q for q in questions if units[q["id"]]]
    qids = [q["id"] for q in questions]
    k, mrr_k = int(params.k), int(params.mrr_k)
    hit, rr = Measure("Success", k), Measure("RR", mrr_k)
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
                set(gold[q["id"]]["gold_chunks"]) if gold_kind(q) == "passage" else None, hit, rr)
                for q in questions}
        strategies.append({"name": spec["name"], "variant": spec["variant"], "chunks": chunks,
                           **strategy_summary(chunks), "outcomes": outcomes,
                           "split": [q["id"] for q in questions if gold[q["id"]]["status"] == "across_boundary"],
                           "retrievers": {r: retriever_summary(o, hit) for r, o in outcomes.items()}})
    clusters = {q["id"]: cluster_of(q, params.cluster_key) for q in questions}
    base = strategies[0]
    comparisons = [{"a": condition_name(r, base["name"]), "b": condition_name(r, s["name"]),
                    **compare(base["outcomes"][r], s["outcomes"][r], qids, k, clusters, int(params.seed),
                              int(params.resamples))}
                   for s in strategies[1:] for r in s["outcomes"] if r in base["outcomes"]]
    for c, adjusted in zip(comparisons, holm([c["sign_p"] for c in comparisons]), strict=True):
        c["holm_p"] = adjusted
    write_text(output.audit, "\t".join(["qid", "gold units", *(s["name"] for s in strategies)]) + "\n"
               + "".join("\t".join(row) + "\n" for row in audit_rows(qids, units, strategies)))
    for s in strategies:
        del s["chunks"], s["outcomes"]
    result = {"k": k, "mrr_k": mrr_k, "questions": len(qids), "sets": list(params.sets), "strategies": strategies,
              "comparisons": comparisons}
    write_json(output.json, result)
    write_text(output.md, chunking_markdown(result))
    plot_chunking(strategies, k, output.plot)
    print(markdown_table(*chunking_rows(strategies, k, mrr_k)))


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
