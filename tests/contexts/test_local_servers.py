"""A local OpenAI-compatible server as the openai backend meets it: the ledger reads the cached
prefix where the server reports it (usage's cached_tokens as OpenAI and vLLM, timings.cache_n as
llama.cpp's server) and says the cache is not reported where it is not (Ollama); the estimate
takes the context window the server states; through the fake OpenAI server."""
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import write_lines
from test_contexts import EXTRA, PRICES, PROMPT, ROOT, TEMPLATE, contexts_for, demo_corpus

from fakes.llm_servers import openai_server

from ctxret.contexts.ledger import estimate, summarize, versus
from ctxret.contexts.prices import model_prices
from ctxret.contexts.per_document import ContextStore
from ctxret.errors import InputError
from ctxret.presentation.ledger_text import stats_lines, versus_lines
from ctxret.stages.contexts import contexts_estimate


def ledger_of(cache_report, tmp_path):
    docs, chunks = demo_corpus(limit=2)
    with openai_server() as server:
        server.cache_report = cache_report
        llm = {"backend": "openai", "model": "local", "base_url": f"{server.url}/v1"}
        records, calls, _ = contexts_for(docs, chunks, llm, ContextStore(str(tmp_path / "store")))
    assert calls == len(chunks)
    return records, summarize(records, len(chunks), PRICES)


@pytest.mark.parametrize("cache_report", ["usage", "timings"])
def test_the_cached_prefix_is_read_where_the_server_reports_it(cache_report, tmp_path):
    records, ledger = ledger_of(cache_report, tmp_path)
    _, as_openai = ledger_of("usage", tmp_path / "openai")
    assert ledger["usage"] == as_openai["usage"] and ledger["usage"]["cache_read_input_tokens"] > 0
    assert ledger["cache_not_reported"] == 0 and not any("cache_not_reported" in r for r in records)
    line = next(l for l in stats_lines("A2", ledger) if l.startswith("input tokens"))
    assert line == f"input tokens {ledger['input_tokens_total']:,}, read from cache {ledger['cache_read_share']:.3f}"


def test_a_server_that_reports_no_cache_is_said_so_not_counted_as_uncached_only(tmp_path):
    records, ledger = ledger_of(None, tmp_path)
    assert all(r["cache_not_reported"] for r in records) and ledger["cache_not_reported"] == len(records)
    assert ledger["usage"]["cache_read_input_tokens"] == 0
    line = next(l for l in stats_lines("A2", ledger) if l.startswith("input tokens"))
    assert line.endswith("read from cache not reported (the server states no cached tokens)")


@pytest.mark.parametrize("cache_report", [None, "timings"])
def test_the_estimate_beside_the_ledger_says_not_reported_on_the_cache_rows(cache_report, tmp_path):
    docs, chunks = demo_corpus(limit=2)
    e = estimate(docs, chunks, PROMPT, EXTRA, model_prices(PRICES, "local"), 170, "openai")
    _, ledger = ledger_of(cache_report, tmp_path)
    vs = versus(e, ledger)
    lines = {l.split("  ")[1].strip(): l for l in versus_lines("A2", vs, PRICES["version"])[2:]}
    print("\n".join(lines.values()))
    cache_rows = ("input, uncached", "input, cache read", "cache-read share")
    for row in cache_rows:
        if cache_report is None:
            assert vs[row]["ledger"] is None and vs[row]["error_pct"] is None and vs[row]["not_reported"]
            assert lines[row].split()[-3:] == ["not", "reported", "-"] and "%" not in lines[row]
        else:
            assert not vs[row].get("not_reported") and lines[row].endswith("%")
    for row in ("calls", "input, total", "output"):     # what the server reports is compared
        assert lines[row].endswith("%") and vs[row]["error_pct"] is not None


@pytest.mark.parametrize("report, where", [
    ("llama.cpp", "as {url}/props states it (default_generation_settings.n_ctx)"),
    ("vllm", "as {url}/v1/models states it (max_model_len of 'served-model.gguf')"),
    (None, "in {prices}")])
def test_the_estimate_takes_the_context_window_the_server_states(report, where, tmp_path, capsys):
    docs, chunks = demo_corpus(limit=2)
    prices = str(ROOT / "config" / "prices.yaml")
    files = {"docs": write_lines(tmp_path / "docs.jsonl", docs), "chunks": write_lines(tmp_path / "chunks.jsonl", chunks)}
    input = SimpleNamespace(**files, template=str(TEMPLATE), prices=prices)
    output = SimpleNamespace(json=str(tmp_path / "estimate.json"))
    with openai_server() as server:
        llm = {"backend": "openai", "model": "local", "base_url": f"{server.url}/v1", "api_key_env": "OPENAI_API_KEY"}
        params = SimpleNamespace(llm=llm, extra_sentence=EXTRA, output_tokens=170)
        said = where.format(url=server.url, prices=prices)
        server.window_report, server.n_ctx = report, 100_000       # over the price row's 32,768
        contexts_estimate(input=input, output=output, params=params)
        window = json.loads(Path(output.json).read_text())["context_window"]
        assert window == {"tokens": 100_000 if report else 32_768, "from": said}
        assert f"can hold ({window['tokens']:,} tokens, context_window {said}): 0" in capsys.readouterr().out
        asked = [r["path"] for r in server.requests]
        assert asked == {"llama.cpp": ["/props"], "vllm": ["/props", "/v1/models"], None: ["/props", "/v1/models"]}[report]
        if report:                                                  # a window the documents do not fit
            server.n_ctx = 1_000
            Path(output.json).unlink()
            with pytest.raises(InputError, match=rf"2 documents are too long for one call of local \(context_window "
                                                 rf"1,000 tokens {re.escape(said)}\): "):
                contexts_estimate(input=input, output=output, params=params)
            assert not Path(output.json).exists()
