"""Several context sources in one run (contexts.variants): A1 by the fake claude CLI, A2 by the
fake OpenAI server, A3 with A1's backend and model, and G1 from a file, each priced and ledgered on
its own, all compared with T1 and with one another, paired; a rerun pays nothing. Real workflow
runs on the mini corpus."""
import json
import shutil

import pytest
from test_given_contexts import given_records, write_records

from conftest import FAKE_CLAUDE
from fakes.llm_servers import openai_server
from ctxret.presentation.wording import wording
from workflow import claude_calls, claude_env, mini_config, snakemake

CLAUDE = {"backend": "claude-cli", "executable": str(FAKE_CLAUDE), "model": "opus", "effort": "high"}
NAMED = ("A1", "A2", "A3", "G1")
PAIRS = [["T1", v] for v in NAMED] + [[a, b] for i, a in enumerate(NAMED) for b in NAMED[i + 1:]]


def completions(server) -> int:
    """The chat completions the server answered (the estimate also asks it for its context window)."""
    return sum(r["path"] == "/v1/chat/completions" for r in server.requests)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("variants")
    path = write_records(tmp / "g1.jsonl", given_records(tmp))
    with openai_server() as server:
        a2 = {"backend": "openai", "model": "gpt-4.1-mini", "base_url": f"{server.url}/v1"}
        config = mini_config(tmp, contexts={"llm": CLAUDE, "variants": {"A2": {"llm": a2}, "A3": {"llm": CLAUDE},
                                                                        "G1": {"file": str(path)}}},
                             pairs={"resamples": 1000, "variant_pairs": PAIRS,
                                    "primary": [{"a": "{dense}:T1", "b": "{dense}:A1"},
                                                {"a": "{dense}:A1", "b": "{dense}:A2"},
                                                {"a": "{dense}:T1", "b": "{dense}:A2"}]})
        env = {**claude_env(tmp), "OPENAI_API_KEY": "sk-fake"}
        proc = snakemake(config, env=env)
        yield tmp, config, env, server, proc


def test_every_variant_is_compared_with_t1_and_with_each_other_paired(run):
    tmp = run[0]
    comparisons = json.loads((tmp / "results" / "pairs.json").read_text())["comparisons"]
    assert {(c["a"], c["b"]) for c in comparisons if c["role"] == "primary"} == {("e5:T1", "e5:A1"),
                                                                                  ("e5:A1", "e5:A2"),
                                                                                  ("e5:T1", "e5:A2")}
    assert {(c["a"], c["b"]) for c in comparisons} == {(f"{r}:{a}", f"{r}:{b}") for r in ("e5", "bm25", "he5")
                                                       for a, b in PAIRS}
    a1_a2 = [c for c in comparisons if (c["a"], c["b"], c["group"], c["k"]) == ("e5:A1", "e5:A2", "HP", 5)]
    assert len(a1_a2) == 1 and a1_a2[0]["N"] == 5   # the same questions on both sides
    assert a1_a2[0]["both_hit"] + a1_a2[0]["both_missed"] + a1_a2[0]["only_a"] + a1_a2[0]["only_b"] == 5
    md = (tmp / "results" / "pairs.md").read_text()
    for a, b in PAIRS:
        assert f"| e5:{a} | e5:{b} |" in md, (a, b)


def test_each_paid_variant_is_estimated_preregistered_and_ledgered_on_its_own(run):
    tmp, _, _, server, _ = run
    ctx = tmp / "results" / "ctx"
    a1, a2 = (json.loads((ctx / v / "estimate.json").read_text()) for v in ("A1", "A2"))
    assert (a1["backend"], a1["model"], a2["backend"], a2["model"]) == ("claude-cli", "opus", "openai", "gpt-4.1-mini")
    assert a1["calls"] == a2["calls"] == 6 and a1["cost_usd"] > a2["cost_usd"] > 0
    prereg = (tmp / "results" / "preregistration.md").read_text().splitlines()  # in the report language, ko
    for v, priced in {"A1": "claude-cli opus", "A2": "openai gpt-4.1-mini", "A3": "claude-cli opus"}.items():
        assert any(l.startswith(f"- {v}: ") and priced in l for l in prereg), v
    for v in ("A1", "A2", "A3"):
        ledger = json.loads((ctx / v / "stats.json").read_text())
        assert ledger["results"] == 6 and "vs_estimate" in ledger, v
    assert json.loads((ctx / "A2" / "stats.json").read_text())["usage"]["cache_read_input_tokens"] > 0
    assert not (ctx / "G1" / "estimate.json").exists()
    # A3 asks what A1 asked, of the same backend and model: its answers are A1's, paid once
    assert claude_calls(tmp) == 6 and completions(server) == 6
    texts = {v: [json.loads(l)["context"] for p in sorted((ctx / v / "docs").glob("*.jsonl"))
                 for l in p.read_text().splitlines()] for v in ("A1", "A3")}
    assert texts["A1"] == texts["A3"]


def test_a_primary_between_two_paid_variants_says_no_free_pilot_stands_in(run):
    """T1 vs A2 is planned on T1 vs X1 as T1 vs A1 is; A1 vs A2 has no free pilot: both sides' stand-in is X1."""
    tmp = run[0]
    prereg = json.loads((tmp / "results" / "preregistration.json").read_text())
    planned = {(p["a"], p["b"]): p for p in prereg["primaries"]}
    assert planned["e5:T1", "e5:A1"]["planning"] == planned["e5:T1", "e5:A2"]["planning"] == {"a": "e5:T1",
                                                                                             "b": "e5:X1"}
    both_paid = planned["e5:A1", "e5:A2"]
    assert both_paid["planning"] is None and both_paid["no_pilot"] == "e5:X1" and "missing" not in both_paid
    md = (tmp / "results" / "preregistration.md").read_text()   # in the report language, ko
    said = wording("ko")["plan_no_pilot"].format(a="e5:A1", b="e5:A2", c="e5:X1")
    assert f"**{said}**" in md and "pairs.fallback_variant를 더하라" not in md
    assert f"e5:A1 vs e5:A2: {said}" in (tmp / "results" / "logs" / "preregister.log").read_text()


def variant_texts(results):
    return {v: (results / f"var-{v}.jsonl").read_text(encoding="utf-8") for v in NAMED}


def test_a_rerun_from_nothing_pays_nothing(run):
    """results/ deleted, the variants asked for again: every context from the store or the file
    (a whole run's scores after results/ is deleted: test_workflow.py)."""
    tmp, config, env, server, _ = run
    calls, requests = claude_calls(tmp), completions(server)
    before = variant_texts(tmp / "results")
    shutil.rmtree(tmp / "results")
    snakemake(config, *(str(tmp / "results" / f"var-{v}.jsonl") for v in NAMED), env=env)
    assert (claude_calls(tmp), completions(server)) == (calls, requests)
    assert variant_texts(tmp / "results") == before


def spans(ctx):
    """Each document's (first start, last end) of its contexts."""
    out = {}
    for path in sorted(ctx.glob("docs/*.jsonl")):
        recs = [json.loads(l) for l in path.read_text().splitlines()]
        out[path.stem] = (min(r["started"] for r in recs), max(r["ended"] for r in recs))
    return list(out.values())


def test_a_variant_capped_at_one_worker_asks_one_document_at_a_time(tmp_path):
    """llm_workers=2 for the run, on one core; A2 (a local server, say) at 1: A1's two documents
    at once (a context job holds no core), A2's one after the other."""
    sonnet = {**CLAUDE, "model": "sonnet"}
    config = mini_config(tmp_path, contexts={"llm": CLAUDE, "variants": {"A2": {"llm": sonnet, "llm_workers": 1}}})
    env = {**claude_env(tmp_path), "FAKE_CLAUDE_FAIL": "sleep:1000", "FAKE_CLAUDE_SLEEP_S": "0.5"}
    results = tmp_path / "results"
    snakemake(config, str(results / "var-A1.jsonl"), str(results / "var-A2.jsonl"), "--cores", "1",
              "--resources", "llm_workers=2", env=env)
    (a0, a1), (b0, b1) = spans(results / "ctx" / "A1")
    assert a0 < b1 and b0 < a1   # at once
    (a0, a1), (b0, b1) = spans(results / "ctx" / "A2")
    assert a1 <= b0 or b1 <= a0  # one after the other


def declared_threads(dry_run: str) -> dict[str, int]:
    """{the job's variant and document: its threads} of every context job a dry run lists."""
    out = {}
    for block in dry_run.split("\nrule contexts:\n")[1:]:
        fields = dict(line.strip().split(": ", 1) for line in block.split("\n[")[0].splitlines() if ": " in line)
        out[fields["wildcards"]] = int(fields["threads"])
    return out


def test_a_local_servers_context_jobs_hold_its_threads(tmp_path):
    """A2 on a local server of 2 threads (llm.server_threads): each of its document jobs declares 2
    threads, so no embedding runs beside it on those cores; A1, a remote service, holds none."""
    local = {"backend": "openai", "model": "local", "base_url": "http://127.0.0.1:9/v1", "server_threads": 2}
    config = mini_config(tmp_path, contexts={"llm": CLAUDE, "variants": {"A2": {"llm": local}}})
    threads = declared_threads(snakemake(config, "-n", env=claude_env(tmp_path)).stdout)
    assert threads == {"cvar=A1, slug=kafka-lag": 0, "cvar=A1, slug=redis-ttl": 0,
                       "cvar=A2, slug=kafka-lag": 2, "cvar=A2, slug=redis-ttl": 2}
