"""Bad question sets and gold the chunks cannot show: one line naming the file and line, before
any context is asked for (tests/bad_inputs.py); what is legal but surprising is a warning line."""
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from bad_inputs import QUESTIONS_CASES, Experiment, check
from conftest import FAKE_CLAUDE
from workflow import MINI


@pytest.mark.parametrize("case", QUESTIONS_CASES, ids=[c.name for c in QUESTIONS_CASES])
def test_a_bad_input_stops_with_one_line_and_writes_nothing(tmp_path, case):
    check(tmp_path, case)


def test_bad_gold_stops_the_run_before_any_paid_call(tmp_path):
    """A1 by the fake claude and a question whose passage is nowhere: qcheck stops the run, and
    the contexts, which wait for qcheck, never call."""
    x = Experiment(tmp_path)
    x.set("contexts.llm", {"backend": "claude-cli", "executable": str(FAKE_CLAUDE)})
    x.edit_row("h", 0, gold_passage="이 문장은 어디에도 없다")
    proc = x.run("--cores", "2", "--resources=llm_workers=4")
    assert proc.returncode == 1 and "h01: passage missing" in proc.stdout + proc.stderr
    assert not (tmp_path / "claude-calls.jsonl").exists()
    assert not (tmp_path / "results" / "ctx" / "A1" / "docs").exists()   # (the estimate, free, may have run)


def test_a_sample_above_a_sets_size_is_a_warning_in_the_questions_log(tmp_path, capsys):
    from conftest import corpus_settings, question_sets

    from ctxret.stages import questions
    sets = question_sets({"H": MINI / "questions" / "questions-h.jsonl", "P": MINI / "questions" / "questions-p.jsonl"})
    sets["H"]["sample"] = 500
    output = SimpleNamespace(questions=str(tmp_path / "questions.jsonl"), sets=str(tmp_path / "question-sets.json"))
    questions.questions(input=SimpleNamespace(), output=output,
                  params=SimpleNamespace(sets=sets, corpus=corpus_settings(MINI / "articles"), store=str(tmp_path / "store")))
    size = len(Experiment(tmp_path).rows("h"))
    assert [l for l in capsys.readouterr().out.splitlines() if l.startswith("warning:")] == [
        f"warning: question set H: its sample (500) is above its {size} questions, so all {size} are used; "
        f"lower questions.sets.H.sample or leave it 0"]
    records = json.loads(Path(output.sets).read_text())
    assert records["H"]["warnings"] == [{"kind": "sample", "set": "H", "sample": 500, "size": size}]
    assert "warnings" not in records["P"]
