"""The whole workflow on the mini corpus: real models, real Qdrant, real numbers."""
import json
import shutil

import pytest

from workflow import mini_config, snakemake


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wf")
    config = mini_config(tmp)
    proc = snakemake(config)
    return tmp, config, proc


def test_score_comes_from_real_retrieval(first_run):
    tmp, _, _ = first_run
    score = json.loads((tmp / "results" / "score.json").read_text())
    conditions = {r["condition"] for r in score["results"]}
    assert conditions == {f"{r}:{v}" for r in ("e5", "bm25", "he5") for v in ("T0", "T1")}
    gold = json.loads((tmp / "results" / "gold.json").read_text())["questions"]
    run = [json.loads(l) for l in (tmp / "results" / "runs" / "e5-T1.jsonl").read_text().splitlines()]
    # recompute fail@5 for HP from the run file and the gold chunks
    hp = [r for r in run if gold[r["qid"]]["set"] in ("H", "P")]
    fails = sum(1 for r in hp if not set(gold[r["qid"]]["gold_chunks"]) & set(r["ids"][:5]))
    reported = next(r for r in score["results"] if r["condition"] == "e5:T1" and r["group"] == "HP")
    assert reported["summary"]["fail@5"]["n"] == fails
    assert reported["summary"]["N"] == len(hp) == 5
    # the right answer is found for an identifier question by BM25
    bm25 = {json.loads(l)["qid"]: json.loads(l)["ids"]
            for l in (tmp / "results" / "runs" / "bm25-T1.jsonl").read_text().splitlines()}
    assert bm25["h01"][0] in gold["h01"]["gold_chunks"]


def test_pairs_and_manifest_written(first_run):
    tmp, _, _ = first_run
    pairs = json.loads((tmp / "results" / "pairs.json").read_text())["comparisons"]
    assert {(c["a"], c["b"]) for c in pairs} == {(f"{r}:T0", f"{r}:T1") for r in ("e5", "bm25", "he5")}
    for c in pairs:
        assert c["both_hit"] + c["both_missed"] + c["only_a"] + c["only_b"] == c["N"]
    manifest = (tmp / "results" / "manifest.tsv").read_text().splitlines()
    assert any(line.endswith("score.json") for line in manifest)
    assert all(len(line.split()[0]) == 64 for line in manifest)


def test_second_run_has_nothing_to_do(first_run):
    _, config, _ = first_run
    proc = snakemake(config)
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_deleting_results_recomputes_no_vector(first_run):
    tmp, config, _ = first_run
    before = json.loads((tmp / "results" / "score.json").read_text())
    shutil.rmtree(tmp / "results")
    snakemake(config)
    logs = tmp / "results" / "logs"
    for log in logs.glob("embed-*.log"):
        assert "computed 0" in log.read_text(), log.read_text()
    assert json.loads((tmp / "results" / "score.json").read_text()) == before


def test_a_bad_question_file_stops_with_one_clear_message(tmp_path):
    config = mini_config(tmp_path)
    qfile = tmp_path / "corpus" / "questions" / "questions-h.jsonl"
    qfile.write_text(qfile.read_text(encoding="utf-8") + '{"id": "h09", "question": \n', encoding="utf-8")
    proc = snakemake(config, check=False)
    assert proc.returncode != 0
    assert f"error: {qfile}:4: malformed JSON" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "results" / "gold.json").exists()
