"""Benchmarks as they are published, scored by the real stages and checked against the benchmarks'
own definitions, computed here from the TREC files and the benchmarks' own files (no mapping
through chunks.jsonl):

- codebench/: a pre-chunked code corpus with its own field names (doc_id, chunks, chunk_id,
  content; no title), questions with several gold chunks, two pairs sharing a text (one pair
  with other gold); the cookbook's Pass@k is the mean share of a question's gold chunks in the
  top k.
- cookbook/: the Anthropic cookbook's contextual-embeddings shape as published: the corpus
  codebase_chunks.json (doc_id, original_uuid, content, chunks of chunk_id, original_index,
  content) and evaluation_set.jsonl (query, answer, golden_doc_uuids, golden_chunk_uuids as
  [original_uuid, original_index] pairs, golden_documents; no ids), read through columns alone;
  its Pass@k is computed as the cookbook does, by the golden chunks' contents.
- pages/: a Korean page-level benchmark in parquet (AutoRAG's corpus and QA shape): retrieval_gt
  is a list of groups of page ids; its recall@k is the mean share of groups with a member in the
  top k.
"""
import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import ir_measures
import pyarrow.parquet as pq
import pytest
from conftest import question_sets, read_lines, settings, write_lines
from ir_measures import R, Success

from ctxret.errors import InputError
from ctxret.evaluation.metrics import configured
from ctxret.importers import read_corpus
from ctxret.questions.sets import load_question_sets
from ctxret.stages import chunks, prep, qcheck, questions, score, search

DATA = Path(__file__).parents[1] / "data" / "formats"
CODE = {"format": "chunked", "path": str(DATA / "codebench" / "corpus.jsonl"), "language": "en",
        "columns": {"id": "doc_id", "chunk_id": "chunk_id", "text": "content"}}
COOKBOOK = {"format": "chunked", "path": str(DATA / "cookbook" / "codebase_chunks.json"), "language": "en",
            "columns": {"id": "original_uuid", "chunk_id": "chunk_id", "text": "content",
                        "chunk_index": "original_index"}}
COOKBOOK_SET = {"format": "jsonl", "path": str(DATA / "cookbook" / "evaluation_set.jsonl"),
                "columns": {"question": "query", "gold_chunk_pairs": "golden_chunk_uuids"}}
PAGES = {"format": "table", "path": str(DATA / "pages" / "corpus.parquet"),
         "columns": {"id": "doc_id", "text": "contents"}}
PAGE_SET = {"format": "table", "path": str(DATA / "pages" / "qa.parquet"),
            "columns": {"id": "qid", "question": "query", "gold_docs": "retrieval_gt"}}


def workflow(tmp: Path, corpus: dict, sets: dict, chunker: str, ranked: dict[str, list[str]], ks: list[int]):
    """prep, chunks, questions, qcheck, then a deep run (`ranked`: question -> chunk names, turned
    into chunk ids as a retriever would return them), cut and score, each stage's run() as its
    rule calls it. Returns (score summary of the one set, the scored TREC run, the document TREC run)."""
    config = settings(corpus=corpus, questions={"sets": sets})
    out = SimpleNamespace(docs_all=str(tmp / "docs-all.jsonl"), docs=str(tmp / "docs.jsonl"))
    prep.prep(input=None, output=out, params=SimpleNamespace(corpus=config["corpus"], store=str(tmp / "store")))
    chunk_path = str(tmp / "chunks.jsonl")
    chunks.chunks(input=SimpleNamespace(docs=out.docs), output=SimpleNamespace(chunks=chunk_path),
               params=SimpleNamespace(settings={"max_chars": 800}, chunker=chunker, format=corpus["format"],
                                      t1_template=config["chunking"]["t1_template"]))
    q_out = SimpleNamespace(questions=str(tmp / "questions.jsonl"), sets=str(tmp / "question-sets.json"))
    questions.questions(input=None, output=q_out, params=SimpleNamespace(sets=config["questions"]["sets"],
                                                                  corpus=config["corpus"], store=str(tmp / "store")))
    gold = str(tmp / "gold.json")
    qcheck.qcheck(input=SimpleNamespace(docs=out.docs, chunks=chunk_path, questions=q_out.questions),
               output=SimpleNamespace(gold=gold), params=SimpleNamespace(gap_sets=[], strict=True))
    chunk_id = {c["name"]: c["chunk_id"] for c in read_lines(chunk_path)}
    deep = write_lines(tmp / "runs" / "deep" / "bm25-T1.jsonl", [
        {"qid": q, "ids": [chunk_id[n] for n in names], "scores": [float(len(names) - i) for i in range(len(names))]}
        for q, names in ranked.items()])
    run, trec = str(tmp / "runs" / "bm25-T1.jsonl"), str(tmp / "runs" / "bm25-T1.trec")
    search.search_cut(input=SimpleNamespace(deep=[str(deep)], chunks=[chunk_path]),
            output=SimpleNamespace(runs=[run], trecs=[trec]), params=SimpleNamespace(names=["bm25:T1"], top_k=20))
    (set_name,) = sets
    s_out = SimpleNamespace(md=str(tmp / "score.md"), json=str(tmp / "score.json"), parquet=str(tmp / "score.parquet"),
                            qrels=str(tmp / "runs" / "qrels.txt"), doc_runs=[str(tmp / "runs" / "doc" / "bm25-T1.trec")],
                            doc_qrels=str(tmp / "runs" / "doc" / "qrels.txt"),
                            ids=str(tmp / "runs" / "ids.json"))
    score.score(input=SimpleNamespace(gold=gold, chunks=chunk_path, runs=[run], judgments=[]), output=s_out,
              params=SimpleNamespace(conditions=[("bm25", "T1")], groups={set_name: [set_name]}, main_group=set_name,
                                     cutoffs=configured({"ks": ks, "mrr_k": 10, "doc_k": 1, "ndcg_k": 10,
                                                         "r_k": None}, 20), per_set=False,
                                     language="en", title="T"))
    summary = json.loads(Path(s_out.json).read_text())["results"][0]["summary"]
    return summary, trec, s_out.doc_runs[0]


def trec_ranking(path: str) -> dict[str, list[str]]:
    """The ids of a TREC run in rank order, per question, read as the file says."""
    rows = [line.split() for line in Path(path).read_text().splitlines()]
    out: dict[str, list[tuple[int, str]]] = {}
    for qid, _, doc, rank, _, _ in rows:
        out.setdefault(qid, []).append((int(rank), doc))
    return {q: [d for _, d in sorted(r)] for q, r in out.items()}


CODE_RANKED = {
    "cb-1": ["doc_1_chunk_0", "doc_2_chunk_0", "doc_3_chunk_1"],
    "cb-2": ["doc_3_chunk_0", "doc_2_chunk_0", "doc_1_chunk_0", "doc_1_chunk_1"],
    "cb-3": ["doc_1_chunk_1", "doc_3_chunk_1", "doc_2_chunk_1"],
    "cb-4": ["doc_2_chunk_1", "doc_1_chunk_0", "doc_3_chunk_1", "doc_3_chunk_0"],
    "cb-5": ["doc_2_chunk_0", "doc_1_chunk_0", "doc_1_chunk_1", "doc_2_chunk_1"],
    "cb-6": ["doc_3_chunk_1"],
}


def test_code_benchmark_every_question_its_fields_its_ids_and_the_cookbooks_pass_at_k(tmp_path, capsys):
    s, trec, _ = workflow(tmp_path, CODE, {"CB": str(DATA / "codebench" / "questions.jsonl")}, "given",
                          CODE_RANKED, [1, 3])
    log = capsys.readouterr().out
    published = read_lines(DATA / "codebench" / "questions.jsonl")
    gold = {q["id"]: q["gold_chunks"] for q in published}
    # every question is scored, the ones sharing a text too, and the log names them
    assert s["N"] == len(published) == 6
    assert "questions cb-3, cb-4 share one text, each with its own gold: each is scored" in log
    assert "questions cb-5, cb-6 share one text, with the same gold: each is scored" in log
    assert "documents without a title 3 of 3: T1 has no title line for them" in log
    # the scored run names the corpus's own chunk ids
    ranking = trec_ranking(trec)
    assert ranking == CODE_RANKED
    for k in (1, 3):
        pass_k = [len(set(gold[q]) & set(ranking[q][:k])) / len(gold[q]) for q in gold]   # the cookbook's
        assert s[f"pass@{k}"] == pytest.approx(sum(pass_k) / len(pass_k))
        assert s[f"recall@{k}"] == s[f"pass@{k}"]
        assert s[f"hit@{k}"] == pytest.approx(sum(1 for q in gold if set(gold[q]) & set(ranking[q][:k])) / len(gold))
    # trec_eval (ir_measures) on the run as written, against qrels made from the benchmark's own gold
    qrels = [ir_measures.Qrel(q, c, 1) for q, ids in gold.items() for c in ids]
    measured = ir_measures.calc_aggregate([R @ 1, R @ 3, Success @ 3], qrels, ir_measures.read_trec_run(trec))
    assert (measured[R @ 1], measured[R @ 3], measured[Success @ 3]) == pytest.approx(
        (s["pass@1"], s["pass@3"], s["hit@3"]))
    assert Path(tmp_path / "runs" / "qrels.txt").read_text().splitlines()[:3] == [
        "cb-1 0 doc_1_chunk_0 1", "cb-2 0 doc_1_chunk_1 1", "cb-2 0 doc_2_chunk_0 1"]


COOKBOOK_RANKED = {
    "cookbook:1": ["doc_1_chunk_1", "doc_1_chunk_0", "doc_3_chunk_0"],
    "cookbook:2": ["doc_1_chunk_0", "doc_2_chunk_1", "doc_1_chunk_1"],
    "cookbook:3": ["doc_3_chunk_1", "doc_2_chunk_1", "doc_3_chunk_0", "doc_1_chunk_0"],
    "cookbook:4": ["doc_2_chunk_0", "doc_3_chunk_0", "doc_1_chunk_1", "doc_3_chunk_1"],
}


def cookbook_pass_at_k(evaluation_set: Path, corpus: Path, ranking: dict[str, list[str]], k: int) -> float:
    """The cookbook's evaluate_retrieval: per question, the share of its golden chunks (their
    contents, from golden_documents) among the contents of the top k; the mean over questions.
    A question is the line it is on (the set has no ids)."""
    content = {c["chunk_id"]: c["content"].strip() for d in json.loads(corpus.read_text()) for c in d["chunks"]}
    scores = []
    for line, item in enumerate(read_lines(evaluation_set), 1):
        golden = [next(c["content"].strip() for d in item["golden_documents"] if d["uuid"] == uuid
                       for c in d["chunks"] if c["index"] == index) for uuid, index in item["golden_chunk_uuids"]]
        retrieved = [content[c] for c in ranking[f"cookbook:{line}"][:k]]
        scores.append(sum(1 for g in golden if g in retrieved) / len(golden))
    return sum(scores) / len(scores)


def test_the_cookbooks_files_as_published_are_scored_with_the_cookbooks_pass_at_k(tmp_path):
    s, trec, _ = workflow(tmp_path, COOKBOOK, {"cookbook": COOKBOOK_SET}, "given", COOKBOOK_RANKED, [1, 3])
    published = DATA / "cookbook" / "evaluation_set.jsonl"
    assert s["N"] == len(read_lines(published)) == 4
    # no ids in the file: each question is named by its line, and the scored run says so
    ranking = trec_ranking(trec)
    assert ranking == COOKBOOK_RANKED
    for k in (1, 3):
        assert s[f"pass@{k}"] == pytest.approx(cookbook_pass_at_k(published, Path(COOKBOOK["path"]), ranking, k))
    assert s["pass@1"] < s["pass@3"] < 1
    # the gold scored is the chunk each [original_uuid, original_index] pair names in the corpus file
    chunk_of = {(d["original_uuid"], c["original_index"]): c["chunk_id"]
                for d in json.loads(Path(COOKBOOK["path"]).read_text()) for c in d["chunks"]}
    qrels = {tuple(line.split()[::2]) for line in (tmp_path / "runs" / "qrels.txt").read_text().splitlines()}
    assert qrels == {(f"cookbook:{n}", chunk_of[tuple(pair)])
                     for n, item in enumerate(read_lines(published), 1) for pair in item["golden_chunk_uuids"]}


def test_an_edited_cookbook_question_keeps_every_other_questions_id(tmp_path):
    config = settings(corpus=COOKBOOK, questions={"sets": {"cookbook": {**COOKBOOK_SET,
                                                                        "path": str(tmp_path / "eval.jsonl")}}})
    rows = read_lines(COOKBOOK_SET["path"])
    write_lines(tmp_path / "eval.jsonl", rows)
    before, _ = load_question_sets(config["questions"]["sets"], config["corpus"])
    rows[1]["query"] = "Which functions read and write the configuration?"
    rows[2]["golden_chunk_uuids"] = rows[2]["golden_chunk_uuids"][:1]
    write_lines(tmp_path / "eval.jsonl", rows)
    after, _ = load_question_sets(config["questions"]["sets"], config["corpus"])
    assert [q["id"] for q in before] == [q["id"] for q in after] == [f"cookbook:{n}" for n in range(1, 5)]
    assert [q["id"] for q, old in zip(after, before) if q != old] == ["cookbook:2", "cookbook:3"]
    assert after[2]["gold_chunks"] == ["doc_2_chunk_0"]


def test_a_cookbook_question_whose_chunk_the_corpus_selection_dropped_is_named_by_its_line(tmp_path):
    with pytest.raises(InputError) as e:   # doc_3 (110 characters) is dropped; question 4 names its chunks
        workflow(tmp_path, {**COOKBOOK, "min_chars": 120}, {"cookbook": COOKBOOK_SET}, "given", {}, [1])
    assert str(e.value).splitlines()[1:] == [f"  {COOKBOOK_SET['path']}:4: cookbook:4: unknown chunk id"]


PAGES_RANKED = {
    "ko-1": ["page-03", "page-02", "page-01", "page-04", "page-05"],
    "ko-2": ["page-04", "page-01", "page-03", "page-02", "page-05"],
    "ko-3": ["page-05", "page-03", "page-04", "page-01", "page-02"],
    "ko-4": ["page-01", "page-05", "page-03", "page-04", "page-02"],
}


def test_page_benchmark_groups_of_page_ids_scored_as_autorag_recall(tmp_path, capsys):
    s, trec, doc_trec = workflow(tmp_path, PAGES, {"P": PAGE_SET}, "document", PAGES_RANKED, [1, 2, 5])
    log = capsys.readouterr().out
    published = pq.read_table(DATA / "pages" / "qa.parquet").to_pylist()
    groups = {r["qid"]: r["retrieval_gt"] for r in published}
    assert s["N"] == len(published) == 4
    assert "questions ko-1, ko-4 share one text, each with its own gold: each is scored" in log
    assert trec_ranking(trec) == trec_ranking(doc_trec) == PAGES_RANKED   # page ids, at chunk and page level
    ranking = trec_ranking(doc_trec)
    for k in (1, 2, 5):
        recall = [sum(1 for g in groups[q] if set(g) & set(ranking[q][:k])) / len(groups[q]) for q in groups]
        assert s[f"recall@{k}"] == pytest.approx(sum(recall) / len(recall))
        assert s[f"pass@{k}"] == s[f"recall@{k}"]
    # ko-3 at 2: its second group (page-05 or page-01) is met by page-05, its first (page-02) not yet
    assert s["recall@1"] == pytest.approx((0 + 1 / 2 + 1 / 2 + 0) / 4)
    # a hit is any member of any group: trec_eval's Success on the flattened groups
    qrels = [ir_measures.Qrel(q, d, 1) for q, gs in groups.items() for g in gs for d in g]
    assert ir_measures.calc_aggregate([Success @ 2], qrels, ir_measures.read_trec_run(doc_trec))[Success @ 2] == \
        pytest.approx(s["hit@2"])


def test_a_page_corpus_cut_into_chunks_is_warned_about_in_the_chunks_log(tmp_path, capsys):
    docs = read_corpus(settings(corpus=PAGES)["corpus"])
    write_lines(tmp_path / "docs.jsonl", docs)
    chunks.chunks(input=SimpleNamespace(docs=str(tmp_path / "docs.jsonl")),
               output=SimpleNamespace(chunks=str(tmp_path / "chunks.jsonl")),
               params=SimpleNamespace(settings={"max_chars": 50}, chunker="paragraph", format="table",
                                      t1_template=settings()["chunking"]["t1_template"]))
    per_doc = Counter(c["doc"] for c in read_lines(tmp_path / "chunks.jsonl"))
    split = [d for d in docs if per_doc[d["meta"]["id"]] > 1]
    assert split and (f"warning: {len(split)} of 5 table records are split into several chunks (the longest has "
                      f"{max(d['chars'] for d in split)} characters)") in capsys.readouterr().out
    split_id = split[0]["meta"]["id"]
    assert {c["name"] for c in read_lines(tmp_path / "chunks.jsonl") if c["doc"] == split_id} == {
        f"{split_id}#{n}" for n in range(1, per_doc[split_id] + 1)}


def test_a_chunked_field_that_is_not_there_is_named_with_the_fields_there():
    corpus = settings(corpus={**CODE, "columns": {**CODE["columns"], "text": "body"}})["corpus"]
    with pytest.raises(InputError) as e:
        read_corpus(corpus)
    assert str(e.value) == f"{CODE['path']}:1: chunk 0: no field 'body' (fields: chunk_id, original_index, content)"
    with pytest.raises(InputError, match=r"config corpus.columns: chunks not read by format 'table'"):
        read_corpus(settings(corpus={**PAGES, "columns": {"chunks": "parts"}})["corpus"])


def test_the_same_text_in_two_sets_is_two_questions_and_only_an_id_twice_is_an_error(tmp_path):
    a = write_lines(tmp_path / "a.jsonl", [{"id": "a1", "question": "Where?", "gold_docs": ["d1"]}])
    b = write_lines(tmp_path / "b.jsonl", [{"id": "b1", "question": "Where?", "gold_docs": ["d2"]}])
    found, reports = load_question_sets(question_sets({"A": a, "B": b}))
    assert [q["id"] for q in found] == ["a1", "b1"]
    assert reports["B"] == ["questions a1 (set A), b1 share one text, each with its own gold: each is scored"]
    write_lines(b, [{"id": "a1", "question": "Where else?", "gold_docs": ["d2"]}])
    with pytest.raises(InputError, match=rf"{b}:1: duplicate question id 'a1' \(first at {a}:1\)"):
        load_question_sets(question_sets({"A": a, "B": b}))
