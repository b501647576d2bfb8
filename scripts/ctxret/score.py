"""score: failure rate@k, hit/recall/Pass@k, doc recall, MRR, nDCG@10 and R@100 (at chunk and
document level) per condition and question group.

Writes score.md (one line per condition), score.json and score.parquet (the same numbers, one
row per condition x group x metric), the TREC qrels beside the runs, and the document runs
(max-passage: a document at the rank of its best chunk) with their qrels, so that trec_eval or
ir_measures on runs/ reproduces every figure. TREC files name chunks and documents by the user's
own ids (a chunk's `name`, a document's `doc`: ctxret.chunks.name_chunks).
"""
from __future__ import annotations

import numpy as np

from .errors import InputError
from .fileio import atomic_path, read_json, read_jsonl, write_json, write_text
from .metrics import document_ranking
from .outcomes import Condition, Cutoffs, chunk_grades, doc_grades, group_members, question_outcomes
from .runs import chunk_names, doc_names, qrels_text, read_run, trec_text
from .presentation import headline_rows, score_markdown
from .tables import markdown_table
from .wording import wording


def score_groups(gold: dict[str, dict], groups: dict[str, list[str]], per_set: bool) -> dict[str, list[str]]:
    """The configured groups, then (per_set) every question set not already a group of its own."""
    out = group_members(gold, groups)
    if per_set:
        for s in dict.fromkeys(g["set"] for g in gold.values()):
            members = group_members(gold, {s: [s]})[s]
            if s not in out and members not in out.values():
                out[s] = members
    return {name: qids for name, qids in out.items() if qids}


def group_summary(outcomes: dict[str, dict], qids: list[str], cut: Cutoffs) -> dict:
    """Group means. recall@k is the mean share of gold units with a chunk in the top k; pass@k (the
    cookbook's Pass@k, defined as that same mean share) is reported beside it; hit@k counts a
    question as found when any of its gold chunks is in the top k. nDCG and R (trec_eval's
    recall: the share of judged chunks, or documents, in the top k) at chunk and document level."""
    n = len(qids)
    rows = [outcomes[q] for q in qids]
    out: dict = {"N": n}
    for k in cut.ks:
        fails = sum(1 for r in rows if not r[f"hit@{k}"])
        out[f"fail@{k}"] = {"n": fails, "N": n, "rate": fails / n}
        out[f"hit@{k}"] = 1 - fails / n
        out[f"recall@{k}"] = float(np.mean([r[f"recall@{k}"] for r in rows]))
        out[f"pass@{k}"] = out[f"recall@{k}"]
    docs = sum(1 for r in rows if r["doc_hit"])
    out["doc_recall"] = {"n": docs, "N": n, "rate": docs / n}
    out["mrr"] = float(np.mean([r["rr"] for r in rows]))
    for name, key, k in (("nDCG", "ndcg", cut.ndcg_k), ("R", "R", cut.r_k)):
        if k:
            out[f"{name}@{k}"] = float(np.mean([r[key] for r in rows]))
            out[f"doc {name}@{k}"] = float(np.mean([r[f"doc_{key}"] for r in rows]))
    return out


def long_rows(results: list[dict], cut: Cutoffs) -> list[dict]:
    """One row per condition x group x metric (the parquet table)."""
    rows = []
    for r in results:
        s, key = r["summary"], {k: r[k] for k in ("condition", "retriever", "variant", "group")}
        add = lambda metric, k, n, value: rows.append(  # noqa: E731
            {**key, "metric": metric, "k": k, "n": n, "N": s["N"], "value": float(value)})
        for k in cut.ks:
            f = s[f"fail@{k}"]
            add("fail", k, f["n"], f["rate"])
            add("hit", k, s["N"] - f["n"], s[f"hit@{k}"])
            add("recall", k, None, s[f"recall@{k}"])
            add("pass", k, None, s[f"pass@{k}"])
        add("doc_recall", cut.doc_k, s["doc_recall"]["n"], s["doc_recall"]["rate"])
        add("mrr", cut.mrr_k, None, s["mrr"])
        for name, k in (("nDCG", cut.ndcg_k), ("R", cut.r_k)):
            if k:
                add(name, k, None, s[f"{name}@{k}"])
                add(f"doc_{name}", k, None, s[f"doc {name}@{k}"])
    return rows


def document_runs(run: dict[str, list[str]], slug_of: dict[str, str]) -> dict[str, list[str]]:
    return {qid: document_ranking(ranked, slug_of) for qid, ranked in run.items()}


def doc_qrels_text(gold: dict[str, dict], slug_of: dict[str, str], docs: dict[str, str]) -> str:
    """TREC qrels of the document runs: every document holding a gold unit, at its grade, by the
    document's own id (`docs`: slug -> id)."""
    return "".join(f"{q} 0 {docs[slug]} {grade}\n" for q, g in gold.items() if g["gold_chunks"]
                   for slug, grade in doc_grades(chunk_grades(g), slug_of).items())


def write_parquet(path: str, rows: list[dict]) -> None:
    import pyarrow as pa  # only the score and report stages need pyarrow
    import pyarrow.parquet as pq

    schema = pa.schema([("condition", pa.string()), ("retriever", pa.string()), ("variant", pa.string()),
                        ("group", pa.string()), ("metric", pa.string()), ("k", pa.int32()),
                        ("n", pa.int32()), ("N", pa.int32()), ("value", pa.float64())])
    with atomic_path(path) as tmp:
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp)


def run(input, output, params, **_) -> None:
    gold = read_json(input.gold)["questions"]
    chunks = read_jsonl(input.chunks)
    slug_of, names, docs = {c["chunk_id"]: c["slug"] for c in chunks}, chunk_names(chunks), doc_names(chunks)
    ks, mrr_k, doc_k = list(params.ks), int(params.mrr_k), int(params.doc_k)
    cut = Cutoffs(tuple(ks), mrr_k, doc_k, int(params.ndcg_k), params.r_k and int(params.r_k))
    t = wording(params.language)
    configured = dict(params.groups)
    groups = score_groups(gold, configured, bool(params.per_set))
    headline = [g for g in configured if g in groups]
    main = params.main_group
    if main not in groups:
        raise InputError(f"config score.main_group: {main!r} is not a group with questions ({list(groups)})")
    results = []
    for (retriever, variant), path, doc_trec in zip(params.conditions, input.runs, output.doc_runs, strict=True):
        cond = Condition(retriever, variant)
        run = read_run(path, slug_of)
        doc_run = {q: [docs[s] for s in ranked] for q, ranked in document_runs(run, slug_of).items()}
        write_text(doc_trec, trec_text(f"{cond.name}:doc", doc_run))
        outcomes = question_outcomes(run, gold, slug_of, cut)
        for group, qids in groups.items():
            results.append({"condition": cond.name, "retriever": retriever, "variant": variant,
                            "group": group, "summary": group_summary(outcomes, qids, cut)})
    write_text(output.qrels, qrels_text(gold, names))
    write_text(output.doc_qrels, doc_qrels_text(gold, slug_of, docs))
    write_parquet(output.parquet, long_rows(results, cut))
    write_json(output.json, {"ks": ks, "mrr_k": mrr_k, "doc_k": doc_k, "ndcg_k": cut.ndcg_k, "r_k": cut.r_k,
                             "doc_runs": "max", "main_group": main,
                             "headline_groups": headline, "groups": groups, "results": results})
    write_text(output.md, score_markdown(results, headline, main, ks, mrr_k, doc_k, t))
    print(markdown_table(*headline_rows(results, headline, main, ks, mrr_k, doc_k, t)))
