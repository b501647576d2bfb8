"""score: failure rate@k, hit/recall/Pass@k, doc recall, MRR, nDCG@10 and R@100 (at chunk and
document level), and any measure score.measures adds, per condition and question group
(ctxret.evaluation.metrics: the measures, parsed once from the config's score section).

Writes score.md (one line per condition), score.json and score.parquet (the same numbers, one
row per condition x group x metric), the TREC qrels beside the runs, and the document runs
(max-passage: a document at the rank of its best chunk) with their qrels, so that trec_eval or
ir_measures on runs/ reproduces every figure. TREC files name chunks and documents by the user's
own ids (a chunk's `name`, a document's `doc`: ctxret.chunkers.corpus.name_chunks). A judged set's
questions without gold are scored by their graded qrels (the judge stage's grades:
ctxret.evaluation.judgments), written into the same qrels; score.json's `judged` says, per judged
set, its pooling depth, its pairs and the judge's agreement with the gold where there is any.
"""
from ctxret.errors import InputError
from ctxret.evaluation.judgments import judged_gold
from ctxret.evaluation.metrics import (Figure, Measure, chunk_grades, condition_name, doc_grades, document_ranking,
                                       group_members, question_outcomes, reported)
from ctxret.fileio import atomic_path, read_json, read_jsonl, write_json, write_text
from ctxret.presentation.pages import headline_rows, judged_line, markdown_table, score_markdown
from ctxret.presentation.wording import wording
from ctxret.retrieval.runs import chunk_names, doc_names, id_map, qrels_text, read_run, trec_text
from ctxret.runtime.stage_runner import run_rule


def score_groups(gold: dict[str, dict], groups: dict[str, list[str]], per_set: bool) -> dict[str, list[str]]:
    """The configured groups, then (per_set) every question set not already a group of its own."""
    out = group_members(gold, groups)
    if per_set:
        for s in dict.fromkeys(g["set"] for g in gold.values()):
            members = group_members(gold, {s: [s]})[s]
            if s not in out and members not in out.values():
                out[s] = members
    return {name: qids for name, qids in out.items() if qids}


def group_figures(outcomes: dict[str, dict], qids: list[str],
                  measures: list[Measure]) -> list[tuple[Measure, Figure]]:
    """Each measure summarised over a group. recall@k is the mean share of gold units with a chunk
    in the top k; pass@k (the cookbook's Pass@k, defined as that same mean share) is reported beside
    it; hit@k counts a question as found when any of its gold chunks is in the top k. nDCG and R
    (trec_eval's recall: the share of judged chunks, or documents, in the top k) at chunk and
    document level."""
    rows = [outcomes[q] for q in qids]
    return [(m, figure) for m in measures for figure in m.summarise([r[m.name] for r in rows])]


def group_summary(figures: list[tuple[Measure, Figure]], n: int) -> dict:
    return {"N": n, **{f.key: f.value for _, f in figures}}


def long_rows(key: dict, figures: list[tuple[Measure, Figure]], n: int) -> list[dict]:
    """One row per figure of a condition x group (the parquet table): `doc nDCG@10` as metric doc_nDCG, k 10."""
    return [{**key, "metric": f.key.split("@")[0].replace(" ", "_"), "k": m.k, "n": f.n, "N": n,
             "value": float(f.value["rate"] if isinstance(f.value, dict) else f.value)} for m, f in figures]


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


def judged_summary(judgments: dict) -> dict:
    """What score.json says of a judged set: the pooling, the pairs and the agreement with gold."""
    keys = ("depth", "questions", "pairs", "from_store", "paid_calls", "grades_given", "agreement")
    return {**{k: judgments[k] for k in keys}, "without_relevant": len(judgments["without_relevant"])}


def score(input, output, params, **_) -> None:
    chunks = read_jsonl(input.chunks)
    slug_of, names, docs = {c["chunk_id"]: c["slug"] for c in chunks}, chunk_names(chunks), doc_names(chunks)
    judgments = {j["set"]: j for j in map(read_json, input.judgments)}
    gold = judged_gold(read_json(input.gold)["questions"], {q: g for j in judgments.values()
                                                           for q, g in j["grades"].items()}, slug_of)
    cutoffs = dict(params.cutoffs)
    measures = reported(cutoffs)
    t = wording(params.language)
    configured = dict(params.groups)
    groups = score_groups(gold, configured, bool(params.per_set))
    headline = [g for g in configured if g in groups]
    main = params.main_group
    if main not in groups:
        raise InputError(f"config score.main_group: {main!r} is not a group with questions ({list(groups)})")
    results, rows = [], []
    for (retriever, variant), path, doc_trec in zip(params.conditions, input.runs, output.doc_runs, strict=True):
        name = condition_name(retriever, variant)
        run = read_run(path, slug_of, questions=gold)
        doc_run = {q: [docs[s] for s in ranked] for q, ranked in document_runs(run, slug_of).items()}
        write_text(doc_trec, trec_text(f"{name}:doc", doc_run))
        outcomes = question_outcomes(run, gold, slug_of, measures)
        for group, qids in groups.items():
            key = {"condition": name, "retriever": retriever, "variant": variant, "group": group}
            figures = group_figures(outcomes, qids, measures)
            results.append({**key, "summary": group_summary(figures, len(qids))})
            rows += long_rows(key, figures, len(qids))
    write_text(output.qrels, qrels_text(gold, names))
    write_text(output.doc_qrels, doc_qrels_text(gold, slug_of, docs))
    write_json(output.ids, id_map(chunks))
    write_parquet(output.parquet, rows)
    write_json(output.json, {**cutoffs, "doc_runs": "max", "main_group": main,
                             "headline_groups": headline, "groups": groups, "results": results,
                             **({"judged": {n: judged_summary(j) for n, j in judgments.items()}} if judgments else {})})
    lines = [judged_line(n, j, t) for n, j in judgments.items()]
    write_text(output.md, score_markdown(results, headline, main, measures, t, params.title)
               + "".join(f"\n{line}\n" for line in lines))
    print(markdown_table(*headline_rows(results, headline, main, measures, t)))
    for line in lines:
        print(line)


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
