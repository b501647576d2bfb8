"""The whole workflow on the mini corpus: real models, real Qdrant, real numbers."""
import json
import shutil
from datetime import datetime

import pytest

from conftest import FAKE_CLAUDE
from workflow import claude_calls, claude_env, mini_config, snakemake


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    """The mini corpus with every variant: T0, T1, X1 (free) and A1 (the fake claude CLI)."""
    tmp = tmp_path_factory.mktemp("wf")
    llm = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE), "model": "opus", "effort": "high"}
    config = mini_config(tmp, contexts={"llm": llm})
    proc = snakemake(config, "--resources", "llm_workers=1", env=claude_env(tmp))
    return tmp, config, proc


def test_score_comes_from_real_retrieval(first_run):
    tmp, _, _ = first_run
    score = json.loads((tmp / "results" / "score.json").read_text())
    conditions = {r["condition"] for r in score["results"]}
    assert conditions == {f"{r}:{v}" for r in ("e5", "bm25", "he5") for v in ("T0", "T1", "X1", "A1")}
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


def test_the_index_log_counts_the_tokens_kept_per_part_of_speech(first_run):
    """Per tag family, with the conjugated stems inside it; the same counts in the index manifest."""
    tmp, _, _ = first_run
    manifest = json.loads((tmp / "results" / "index" / "v_T1.json").read_text())
    families = manifest["kept_by_tag"]
    assert {"NNG", "VV"} <= set(families) and "VV-R" not in families
    assert all(tag == family or tag.startswith(f"{family}-") for family, tags in families.items() for tag in tags)
    total = sum(sum(tags.values()) for tags in families.values())
    vv = families["VV"]
    line = next(l for l in (tmp / "results" / "logs" / "index-T1.log").read_text().splitlines()
                if "BM25 tokens kept by part of speech" in l)
    assert f"VV {sum(vv.values()):,}" in line and total > 0


def test_pairs_and_manifest_written(first_run):
    tmp, _, _ = first_run
    pairs = json.loads((tmp / "results" / "pairs.json").read_text())["comparisons"]
    assert {(c["a"], c["b"]) for c in pairs} == {(f"{r}:{a}", f"{r}:{b}") for r in ("e5", "bm25", "he5")
                                                  for a, b in (("T0", "T1"), ("T1", "X1"), ("T1", "A1"), ("X1", "A1"))}
    for c in pairs:
        assert c["both_hit"] + c["both_missed"] + c["only_a"] + c["only_b"] == c["N"]
    manifest = (tmp / "results" / "manifest.tsv").read_text().splitlines()
    assert any(line.endswith("score.json") for line in manifest)
    assert all(len(line.split()[0]) == 64 for line in manifest)


def test_second_run_has_nothing_to_do(first_run):
    _, config, _ = first_run
    # the same llm_workers: the plan states the A1 duration at the configured workers
    proc = snakemake(config, "--resources", "llm_workers=1", env=claude_env(first_run[0]))
    assert "Nothing to be done" in proc.stdout + proc.stderr


def test_contexts_a1_and_x1_per_document_with_ledger_beside_the_estimate(first_run):
    tmp, _, _ = first_run
    res = tmp / "results"
    chunks = [json.loads(l) for l in (res / "chunks.jsonl").read_text().splitlines()]
    assert claude_calls(tmp) == len(chunks)
    for variant in ("A1", "X1"):
        assert {p.name for p in (res / "ctx" / variant).iterdir()} == {"ctxlen.json", "docs", "stats.json"} | (
            {"estimate.json"} if variant == "A1" else set())     # nothing per chunk
        records = {r["chunk_id"]: r for p in (res / "ctx" / variant / "docs").glob("*.jsonl")
                   for r in map(json.loads, p.read_text().splitlines())}
        assert set(records) == {c["chunk_id"] for c in chunks}
        rows = [json.loads(l) for l in (res / f"var-{variant}.jsonl").read_text().splitlines()]
        assert rows[0]["text"].startswith(records[chunks[0]["chunk_id"]]["context"] + "\n\n" + chunks[0]["title"])
    a1 = json.loads((res / "ctx" / "A1" / "docs" / f"{chunks[0]['slug']}.jsonl").read_text().splitlines()[0])
    assert a1["raw"]["type"] == "result" and a1["usage"]["cache_creation_input_tokens"] > 0
    # one shard per document, what each A1 job read
    shards = sorted(p.stem for p in (res / "ctx" / "shards").glob("*.json"))
    assert shards == sorted({c["slug"] for c in chunks})
    stats = json.loads((res / "ctx" / "A1" / "stats.json").read_text())
    assert stats["results"] == len(chunks) and stats["cost_usd"] > 0
    estimate = json.loads((res / "ctx" / "A1" / "estimate.json").read_text())
    assert estimate["calls"] == len(chunks) == stats["vs_estimate"]["calls"]["ledger"]
    # the input the estimate expects; the output is the fake's (short chunks, short answers)
    assert abs(stats["vs_estimate"]["input, total"]["error_pct"]) < 10
    assert "the estimate before the run and the ledger" in (res / "logs" / "ctx-stats-A1.log").read_text()
    ctxlen = json.loads((res / "ctx" / "A1" / "ctxlen.json").read_text())
    assert ctxlen["with_question_verbatim"] == 0 and ctxlen["tokens"]["e5"]["max"] > 0
    # token counts per variant and model, the A1 texts longest (context + T1)
    tokens = json.loads((res / "tokens.json").read_text())
    assert set(tokens) == {"T0", "T1", "X1", "A1"}
    assert tokens["A1"]["e5"]["mean"] > tokens["T1"]["e5"]["mean"] > tokens["T0"]["e5"]["mean"]


def test_the_preregistration_is_written_before_the_first_paid_call(first_run):
    tmp, _, _ = first_run
    res = tmp / "results"
    prereg = json.loads((res / "preregistration.json").read_text())
    started = [json.loads(l)["started"] for p in (res / "ctx" / "A1" / "docs").glob("*.jsonl")
               for l in p.read_text().splitlines()]
    assert datetime.fromisoformat(prereg["written"]) <= min(map(datetime.fromisoformat, started))
    # it planned A1's primaries on X1, priced them, and the run kept to it
    first = prereg["primaries"][0]
    assert (first["a"], first["b"], first["planning"]) == ("e5:T1", "e5:A1", {"a": "e5:T1", "b": "e5:X1"})
    estimate = json.loads((res / "ctx" / "A1" / "estimate.json").read_text())
    assert prereg["estimates"] == {"A1": estimate} and prereg["plan"]["workers"] == 1
    assert json.loads((res / "pairs.json").read_text())["kept_to_plan"]["kept"]


def test_the_llm_worker_cap_holds(first_run):
    """With llm_workers=1 (and 2 cores), no two documents' context calls overlap in time."""
    tmp, _, _ = first_run
    spans = {}
    for path in (tmp / "results" / "ctx" / "A1" / "docs").glob("*.jsonl"):
        recs = [json.loads(l) for l in path.read_text().splitlines()]
        spans[path.stem] = (min(r["started"] for r in recs), max(r["ended"] for r in recs))
    assert len(spans) == 2
    (a0, a1), (b0, b1) = spans.values()
    assert a1 <= b0 or b1 <= a0, spans


def test_deleting_results_repeats_no_call_and_no_vector(first_run):
    tmp, config, _ = first_run
    before = json.loads((tmp / "results" / "score.json").read_text())
    calls = claude_calls(tmp)
    shutil.rmtree(tmp / "results")
    snakemake(config, env=claude_env(tmp))
    assert claude_calls(tmp) == calls
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
