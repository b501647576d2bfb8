"""The context ledger: what the calls cost and read from cache, and an estimate before any call.

Pure functions over context records (the per-chunk answers) and a price table
(config/prices.yaml, $ per million tokens, with characters per token for estimates).
"""
from __future__ import annotations

import statistics
from collections import Counter
from datetime import datetime

import numpy as np

from .errors import InputError
from .llm import render_prompt
from .chunktext import t1_text


def model_prices(table: dict, model: str) -> dict:
    """The price row for a model name or alias; InputError when the table lacks it."""
    for name, row in table["models"].items():
        if model == name or model in row.get("aliases", []):
            return row
    raise InputError(f"price table {table.get('version')}: no prices for model {model!r} "
                     f"(add it to config/prices.yaml)")


def priced(usage: dict, prices: dict) -> float:
    return (usage["input_tokens"] * prices["input"] + usage["output_tokens"] * prices["output"]
            + usage["cache_creation_input_tokens"] * prices["cache_write"]
            + usage["cache_read_input_tokens"] * prices["cache_read"]) / 1e6


def call_cost(record: dict, table: dict) -> float:
    """What the service reported, else the usage priced by the table."""
    if record.get("cost_usd") is not None:
        return float(record["cost_usd"])
    return priced(record["usage"], model_prices(table, record["model"]))


def model_keys(record: dict) -> list[str]:
    usage = record["raw"].get("modelUsage") if isinstance(record.get("raw"), dict) else None
    return sorted(usage) if usage else [record["model"]]


def spread(values: list[float]) -> dict:
    if not values:
        return {}
    a = np.asarray(values, float)
    return {"min": float(a.min()), "median": float(np.median(a)), "p90": float(np.quantile(a, 0.9)),
            "max": float(a.max())}


def document_tokens(records: list[dict]) -> int:
    """Per document, the median cache read of its 2nd and later calls, summed."""
    by_doc: dict[str, list[int]] = {}
    for r in records:
        by_doc.setdefault(r["slug"], []).append(r["usage"]["cache_read_input_tokens"])
    return int(sum(statistics.median(reads[1:]) for reads in by_doc.values() if len(reads) > 1))


def summarize(records: list[dict], n_chunks: int, table: dict) -> dict:
    usage = {k: sum(r["usage"][k] for r in records) for k in
             ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")}
    total_in = usage["input_tokens"] + usage["cache_creation_input_tokens"] + usage["cache_read_input_tokens"]
    costs = [call_cost(r, table) for r in records]
    starts = [datetime.fromisoformat(r["started"]) for r in records if r.get("started")]
    ends = [datetime.fromisoformat(r["ended"]) for r in records if r.get("ended")]
    doc_tokens = document_tokens(records)
    cost = sum(costs)
    return {
        "results": len(records), "chunks": n_chunks, "failed": n_chunks - len(records),
        "discarded": dict(Counter(d["cause"] for r in records for d in r.get("discarded", []))),
        "model_keys": dict(Counter(k for r in records for k in model_keys(r))),
        "turns": dict(Counter(r["num_turns"] for r in records)),
        "usage": usage, "input_tokens_total": total_in,
        "cache_read_share": usage["cache_read_input_tokens"] / total_in if total_in else 0.0,
        "cost_usd": cost, "cost_per_call": spread(costs),
        "first_start": min(starts).isoformat() if starts else None,
        "last_end": max(ends).isoformat() if ends else None,
        "elapsed_hours": (max(ends) - min(starts)).total_seconds() / 3600 if starts and ends else 0.0,
        "document_tokens": doc_tokens,
        "cost_per_million_document_tokens": cost / doc_tokens * 1e6 if doc_tokens else None,
    }


def stats_lines(variant: str, s: dict) -> list[str]:
    per_call = s["cost_per_call"]
    lines = [
        f"{variant}: results {s['results']}/{s['chunks']}, chunks left failed {s['failed']}, "
        f"discarded attempts {sum(s['discarded'].values())} {s['discarded']}",
        f"model keys {s['model_keys']}, num_turns {s['turns']}",
        f"input tokens {s['input_tokens_total']:,}, read from cache {s['cache_read_share']:.3f}",
        f"cost ${s['cost_usd']:.2f}" + (f", per call min {per_call['min']:.4f}, median {per_call['median']:.4f}, "
                                         f"p90 {per_call['p90']:.4f}, max {per_call['max']:.4f}" if per_call else ""),
        f"first start {s['first_start']}, last end {s['last_end']}, elapsed {s['elapsed_hours']:.2f} h",
    ]
    if s["cost_per_million_document_tokens"] is not None:
        lines.append(f"document tokens {s['document_tokens']:,}, cost per million document tokens "
                     f"${s['cost_per_million_document_tokens']:.2f} (reference $56.54, original method $1.02)")
    return lines


def estimate(docs: list[dict], chunks: list[dict], template: str, extra: str, prices: dict,
             output_tokens: int) -> dict:
    """Expected usage if every chunk is called once: per document the first call writes the
    document (system prompt) to the cache and the later ones read it; the user message is
    uncached input. Tokens from characters by the table's chars_per_token."""
    cpt = float(prices["chars_per_token"])
    bodies = {d["slug"]: d["body"] for d in docs}
    usage = {"input_tokens": 0.0, "output_tokens": 0.0, "cache_creation_input_tokens": 0.0,
             "cache_read_input_tokens": 0.0}
    seen: set[str] = set()
    for c in chunks:
        body = bodies[c["slug"]]
        usage["input_tokens"] += len(render_prompt(template, body, t1_text(c), extra)) / cpt
        usage["output_tokens"] += output_tokens
        cache = "cache_read_input_tokens" if c["slug"] in seen else "cache_creation_input_tokens"
        usage[cache] += len(body) / cpt
        seen.add(c["slug"])
    usage = {k: int(round(v)) for k, v in usage.items()}
    return {"calls": len(chunks), "usage": usage, "cost_usd": priced(usage, prices)}


def estimate_lines(e: dict, model: str, version: str) -> list[str]:
    u = e["usage"]
    return [f"estimate for {e['calls']} calls to {model} (prices {version}): input {u['input_tokens']:,}, "
            f"cache write {u['cache_creation_input_tokens']:,}, cache read {u['cache_read_input_tokens']:,}, "
            f"output {u['output_tokens']:,} tokens, ${e['cost_usd']:.2f}"]
