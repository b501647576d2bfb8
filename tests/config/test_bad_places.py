"""Results and store placed where they would destroy or mix what they must not: one line, and the
inputs and earlier runs untouched (tests/bad_inputs.py)."""
import json
import os
import shutil
from pathlib import Path

import pytest
from bad_inputs import PLACES, Experiment, _chunked, check
from test_importers import FORMATS


@pytest.mark.parametrize("case", PLACES, ids=[c.name for c in PLACES])
def test_a_bad_input_stops_with_one_line_and_writes_nothing(tmp_path, case):
    check(tmp_path, case)


def _questions_named_like_an_output(x: Experiment) -> Path:
    """The H questions kept as data/questions.jsonl, the name of the questions stage's output."""
    kept = x.tmp / "data" / "questions.jsonl"
    kept.parent.mkdir()
    shutil.copy(x.questions("h"), kept)
    x.set("questions.sets.H", str(kept))
    return kept


def _corpus_named_like_an_output(x: Experiment) -> Path:
    """A chunked corpus table kept as data/docs.jsonl, the name of prep's output."""
    kept = x.tmp / "data" / "docs.jsonl"
    kept.parent.mkdir()
    kept.write_text("".join(json.dumps(d) + "\n" for d in json.loads(
        (FORMATS / "chunked" / "corpus.json").read_text(encoding="utf-8"))), encoding="utf-8")
    _chunked(x, {"gold_chunks": ["py-1"]})
    x.set("corpus.path", str(kept))
    return kept


@pytest.mark.parametrize("keep", [_questions_named_like_an_output, _corpus_named_like_an_output],
                         ids=["question file", "corpus table"])
def test_results_holding_an_input_refuses_to_run_and_the_input_survives(tmp_path, keep):
    """results: the folder of an input named like one of the run's outputs. Snakemake deleted the
    input before writing that output (then stopped on a cyclic graph): now the workflow refuses
    while it is read, in one line, and the input is untouched."""
    x = Experiment(tmp_path)
    kept = keep(x)
    before = kept.read_bytes()
    x.set("results", str(kept.parent))
    proc = x.run()
    output = proc.stdout + proc.stderr
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert proc.returncode == 1 and "Traceback" not in output, output[-3000:]
    assert len(errors) == 1 and f"results: '{kept.parent}' holds " in errors[0], output[-3000:]
    assert kept.read_bytes() == before
    assert sorted(p.name for p in kept.parent.iterdir()) == [kept.name]


def test_a_results_folder_holding_another_corpuss_run_stops_before_anything_mixes(tmp_path):
    """A second experiment (or `snakemake --report` of the demo) aimed at the first one's results:
    one line naming the folder and both corpora; the first experiment's files untouched."""
    x = Experiment(tmp_path)
    plan = tmp_path / "results" / "plan.json"
    plan.parent.mkdir()
    plan.write_text(json.dumps({"corpus": {"format": "files", "path": str(tmp_path / "their-docs")}}))
    proc = x.run("-n")
    errors = [l for l in proc.stderr.splitlines() if l.startswith("error:")]
    line = next(i for i, l in enumerate(x.config_path.read_text().splitlines(), 1) if l.startswith("results:"))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert errors == [f"error: {x.config_path}:{line}: results: 'results' holds the results of another corpus (files "
                      f"{tmp_path / 'their-docs'}, results/plan.json), not of manifests {x.articles}: a run or report "
                      f"there would mix two experiments; give this experiment its own results folder (results: in "
                      f"its config)"]
    assert sorted(p.name for p in plan.parent.iterdir()) == ["plan.json"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a 0o555 folder; the case 'results that cannot "
                                               "take the run lock' stands for it")
def test_a_read_only_results_folder_is_one_line_from_the_run_lock(tmp_path):
    from ctxret.errors import InputError
    from ctxret.runtime import run_lock
    results = tmp_path / "results"
    results.mkdir(mode=0o555)
    with pytest.raises(InputError) as e:
        run_lock.hold(str(results), "checkout")
    assert str(e.value) == (f"results {results}: cannot write its run lock {results}/logs/run.lock (Permission "
                            f"denied); give results a folder this run can write")
