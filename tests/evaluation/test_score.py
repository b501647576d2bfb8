"""score against an independent implementation (ir_measures, i.e. trec_eval) on the same files."""
import json
from pathlib import Path
from types import SimpleNamespace

import ir_measures
import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import question_sets, settings, write_lines
from ir_measures import RR, P, R, Success, nDCG

from ctxret.errors import InputError
from ctxret.evaluation.metrics import configured
from ctxret.retrieval.runs import write_run
from ctxret.stages import questions, score

SETS = {"H": [f"h{i:02d}" for i in range(1, 13)], "P": [f"p{i:02d}" for i in range(1, 9)],
        "G": [f"g{i:02d}" for i in range(1, 5)]}
GROUPS = {"HP": ["H", "P"], "G": ["G"]}


def synthetic(tmp: Path, ranks: dict[str, dict[str, int | None]], gold_sizes: dict[str, int] | None = None,
              depth: int = 20, seed: int = 0) -> SimpleNamespace:
    """Chunks, gold.json, question files and one run per condition, written by our own writers.

    ranks[condition][qid] is the rank of the question's first gold chunk (None: not in the run);
    a question's other gold chunks (gold_sizes) sit just after it; the rest is random filler."""
    rng = np.random.default_rng(seed)
    chunks = [{"chunk_id": f"{i:05d}", "slug": f"doc{i // 8}", "title": f"문서 {i // 8}",
               "section": f"절 {i % 8}" if i % 8 else "", "text": f"청크 {i} 본문",
               "doc": f"DOC-{i // 8}", "name": f"DOC-{i // 8}#{i % 8 + 1}"} for i in range(64)]
    write_lines(tmp / "chunks.jsonl", chunks)
    gold, paths = {}, {}
    for s, qids in SETS.items():
        paths[s] = str(write_lines(tmp / f"questions-{s}.jsonl", [
            {"id": q, "question": f"{q} 질문?", "gold_slug": "doc0", "gold_passage": "본문"} for q in qids]))
        for j, q in enumerate(qids):
            first = (7 * j + len(s)) % 60
            ids = [chunks[first + i]["chunk_id"] for i in range(((gold_sizes or {}).get(q, 1)))]
            gold[q] = {"set": s, "question": f"{q} 질문?", "gold_slug": chunks[first]["slug"], "status": "ok",
                       "kind": "chunk", "units": [{"id": c, "chunks": [c], "grade": 2 if i == 0 and len(ids) > 1 else 1}
                                                  for i, c in enumerate(ids)],
                       "gold_chunks": ids, "gold_slugs": sorted({c["slug"] for c in chunks if c["chunk_id"] in ids})}
    (tmp / "gold.json").write_text(json.dumps({"questions": gold}, ensure_ascii=False))
    questions.questions(input=SimpleNamespace(), params=SimpleNamespace(sets=question_sets(paths), corpus={}, store=str(tmp / "store")),
                  output=SimpleNamespace(questions=str(tmp / "questions.jsonl"), sets=str(tmp / "question-sets.json")))
    runs = []
    for cond, by_q in ranks.items():
        results = {}
        for q, g in gold.items():
            filler = [c["chunk_id"] for c in rng.permutation(chunks) if c["chunk_id"] not in g["gold_chunks"]]
            rank = by_q.get(q)
            ids = filler[:depth] if rank is None else filler[:rank - 1] + g["gold_chunks"] + filler[rank - 1:]
            ids = ids[:depth]
            scores = sorted(rng.random(len(ids)) + np.arange(len(ids))[::-1], reverse=True)  # distinct
            results[q] = list(zip(ids, scores))
        retriever, variant = cond.split(":")
        runs.append(str(tmp / "runs" / f"{retriever}-{variant}.jsonl"))
        write_run(runs[-1], runs[-1].replace(".jsonl", ".trec"), cond, results,
                  {c["chunk_id"]: c["name"] for c in chunks})
    return SimpleNamespace(tmp=tmp, gold=str(tmp / "gold.json"), chunks=str(tmp / "chunks.jsonl"), runs=runs,
                           conditions=[tuple(c.split(":")) for c in ranks], sets=paths,
                           records=str(tmp / "question-sets.json"))


def random_ranks(qids, seed, miss=0.3):
    rng = np.random.default_rng(seed)
    return {q: (None if rng.random() < miss else int(rng.integers(1, 20))) for q in qids}


SCORE = {"ks": [5, 20], "mrr_k": 10, "doc_k": 5, "ndcg_k": 10, "r_k": 20}


def run_score(data: SimpleNamespace, per_set=True, language="en", score_section=SCORE):
    out = data.tmp / "out"
    runs = data.tmp / "runs"
    output = SimpleNamespace(md=str(out / "score.md"), json=str(out / "score.json"),
                             parquet=str(out / "score.parquet"), qrels=str(runs / "qrels.txt"),
                             doc_runs=[str(runs / "doc" / f"{r}-{v}.trec") for r, v in data.conditions],
                             doc_qrels=str(runs / "doc" / "qrels.txt"), ids=str(runs / "ids.json"))
    params = SimpleNamespace(conditions=data.conditions, groups=GROUPS, cutoffs=configured(score_section, 20),
                             main_group="HP", per_set=per_set, language=language, title="T")
    score.score(input=SimpleNamespace(gold=data.gold, chunks=data.chunks, runs=data.runs, judgments=[]), output=output,
                params=params)
    return output


ALL = [q for qids in SETS.values() for q in qids]


def test_metrics_equal_trec_eval_through_ir_measures(tmp_path):
    # several gold chunks (one graded 2) for some questions, so that recall@k, hit@k and nDCG differ
    data = synthetic(tmp_path, {"e5:T1": random_ranks(ALL, 1), "bm25:T1": random_ranks(ALL, 2)},
                     gold_sizes={"h01": 3, "h02": 2, "p03": 2, "g01": 2, "h07": 9})
    out = run_score(data)
    reported = json.loads(Path(out.json).read_text())
    qrels = list(ir_measures.read_trec_qrels(out.qrels))
    doc_qrels = list(ir_measures.read_trec_qrels(out.doc_qrels))
    checked = 0
    for (retriever, variant), path, doc_path in zip(data.conditions, data.runs, out.doc_runs):
        run = list(ir_measures.read_trec_run(path.replace(".jsonl", ".trec")))
        doc_run = list(ir_measures.read_trec_run(doc_path))
        for group, qids in reported["groups"].items():
            keep = set(qids)
            expected = ir_measures.calc_aggregate([R @ 5, R @ 20, Success @ 5, Success @ 20, RR @ 10, nDCG @ 10],
                                                  [q for q in qrels if q.query_id in keep],
                                                  [r for r in run if r.query_id in keep])
            by_doc = ir_measures.calc_aggregate([nDCG @ 10, R @ 20],
                                                [q for q in doc_qrels if q.query_id in keep],
                                                [r for r in doc_run if r.query_id in keep])
            s = next(r["summary"] for r in reported["results"]
                     if r["condition"] == f"{retriever}:{variant}" and r["group"] == group)
            for k in (5, 20):
                assert s[f"recall@{k}"] == pytest.approx(expected[R @ k], abs=1e-9)   # one chunk a unit here
                assert s[f"pass@{k}"] == s[f"recall@{k}"]
                assert s[f"hit@{k}"] == pytest.approx(expected[Success @ k], abs=1e-9)
                assert s[f"fail@{k}"]["rate"] == pytest.approx(1 - expected[Success @ k], abs=1e-9)
            assert s["mrr"] == pytest.approx(expected[RR @ 10], abs=1e-9)
            assert s["nDCG@10"] == pytest.approx(expected[nDCG @ 10], abs=1e-9)
            assert s["R@20"] == pytest.approx(expected[R @ 20], abs=1e-9)
            assert s["doc nDCG@10"] == pytest.approx(by_doc[nDCG @ 10], abs=1e-9)
            assert s["doc R@20"] == pytest.approx(by_doc[R @ 20], abs=1e-9)
            checked += 1
    assert checked == 2 * 4                                       # HP, G, and the sets H and P alone
    h01 = next(r["summary"] for r in reported["results"] if r["condition"] == "e5:T1" and r["group"] == "HP")
    assert any(h01[f"recall@{k}"] != h01[f"hit@{k}"] for k in (5, 20))
    assert "2" in {line.split()[-1] for line in Path(out.qrels).read_text().splitlines()}   # graded gains used


def test_qrels_parquet_json_and_markdown_carry_the_same_numbers(tmp_path):
    data = synthetic(tmp_path, {"e5:T1": random_ranks(ALL, 3), "he5:T1": random_ranks(ALL, 4)},
                     gold_sizes={"h05": 2})
    out = run_score(data)
    gold = json.loads(Path(data.gold).read_text())["questions"]
    name = {c["chunk_id"]: c["name"] for c in map(json.loads, Path(data.chunks).read_text().splitlines())}
    assert Path(out.qrels).read_text().splitlines() == [f"{q} 0 {name[u['chunks'][0]]} {u['grade']}"
                                                        for q, g in gold.items() for u in g["units"]]
    reported = json.loads(Path(out.json).read_text())
    assert list(reported["groups"]) == ["HP", "G", "H", "P"]       # G is a set and a group: once
    table = pq.read_table(out.parquet).to_pylist()
    assert len(table) == len(reported["results"]) * (4 * 2 + 2 + 4)     # + nDCG and R, chunk and doc
    for row in table:
        s = next(r["summary"] for r in reported["results"]
                 if r["condition"] == row["condition"] and r["group"] == row["group"])
        key = {"fail": f"fail@{row['k']}", "doc_recall": "doc_recall"}.get(row["metric"])
        if key:
            assert (row["n"], row["N"], row["value"]) == (s[key]["n"], s[key]["N"], s[key]["rate"])
        else:
            name = "mrr" if row["metric"] == "mrr" else f"{row['metric'].replace('doc_', 'doc ')}@{row['k']}"
            assert row["value"] == s[name]
    md = Path(out.md).read_text()
    hp = next(r["summary"] for r in reported["results"] if r["condition"] == "e5:T1" and r["group"] == "HP")
    g = next(r["summary"] for r in reported["results"] if r["condition"] == "e5:T1" and r["group"] == "G")
    line = next(l for l in md.splitlines() if l.startswith("| e5:T1 |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    f = lambda c: f"{c['n']}/{c['N']} ({c['rate']:.3f})"  # noqa: E731
    assert cells == ["e5:T1", f(hp["fail@5"]), f(hp["fail@20"]), f(g["fail@5"]), f(g["fail@20"]),
                     f(hp["doc_recall"]), f"{hp['mrr']:.3f}", f"{hp['nDCG@10']:.3f}", f"{hp['doc nDCG@10']:.3f}"]


def test_a_measure_added_in_the_score_section_is_in_score_json_parquet_and_markdown(tmp_path):
    data = synthetic(tmp_path, {"e5:T1": random_ranks(ALL, 5)}, gold_sizes={"h01": 3, "h02": 2, "p03": 2})
    out = run_score(data, score_section=settings(score={**SCORE, "measures": ["P@5", "doc P@3"]})["score"])
    reported = json.loads(Path(out.json).read_text())
    assert reported["measures"] == ["P@5", "doc P@3"]
    qrels, doc_qrels = list(ir_measures.read_trec_qrels(out.qrels)), list(ir_measures.read_trec_qrels(out.doc_qrels))
    run = list(ir_measures.read_trec_run(data.runs[0].replace(".jsonl", ".trec")))
    doc_run = list(ir_measures.read_trec_run(out.doc_runs[0]))
    for r in reported["results"]:
        keep = set(reported["groups"][r["group"]])
        expected = ir_measures.calc_aggregate([P @ 5], [q for q in qrels if q.query_id in keep],
                                              [x for x in run if x.query_id in keep])[P @ 5]
        by_doc = ir_measures.calc_aggregate([P @ 3], [q for q in doc_qrels if q.query_id in keep],
                                            [x for x in doc_run if x.query_id in keep])[P @ 3]
        assert (r["summary"]["P@5"], r["summary"]["doc P@3"]) == (pytest.approx(expected), pytest.approx(by_doc))
    table = pq.read_table(out.parquet).to_pylist()
    assert {(row["metric"], row["k"]) for row in table} >= {("P", 5), ("doc_P", 3)}
    head = next(line for line in Path(out.md).read_text().splitlines() if line.startswith("| condition | group |"))
    assert head.rstrip(" |").endswith("| P@5 | doc P@3")


def test_a_run_naming_an_unknown_chunk_stops_at_its_line(tmp_path):
    data = synthetic(tmp_path, {"e5:T1": {}})
    lines = Path(data.runs[0]).read_text().splitlines()
    bad = json.loads(lines[2])
    bad["ids"][0] = "99999"
    lines[2] = json.dumps(bad)
    Path(data.runs[0]).write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=rf"{data.runs[0]}:3: chunk ids not in chunks.jsonl: \['99999'\]"):
        run_score(data)


def test_an_unknown_main_group_is_named(tmp_path):
    data = synthetic(tmp_path, {"e5:T1": {}})
    params = SimpleNamespace(conditions=data.conditions, groups=GROUPS, cutoffs=configured({**SCORE, "ks": [5]}, 10),
                             main_group="XY", per_set=False, language="ko", title="T")
    with pytest.raises(InputError, match="config score.main_group: 'XY'"):
        score.score(input=SimpleNamespace(gold=data.gold, chunks=data.chunks, runs=data.runs, judgments=[]),
                  output=SimpleNamespace(md="", json="", parquet="", qrels=""), params=params)
