"""The context ledger: what the calls cost and read from cache, and an estimate before any call.

Pure functions over context records (the per-chunk answers) and a price table
(config/prices.yaml, $ per million tokens, with characters per token for estimates). The
estimate and the ledger give the same figures (`figures`), so a run shows both side by side
(ctxret.presentation.ledger_text puts them in words). The price table is read and checked
by ctxret.contexts.prices.
"""
from __future__ import annotations

import statistics
from collections import Counter
from datetime import datetime

import numpy as np

from ctxret.contexts.llm import INPUT_KINDS, USAGE_KEYS, backend_spec
from ctxret.contexts.prices import batch_prices, model_prices, priced
from ctxret.contexts.prompt import Prompt
from ctxret.errors import InputError
from ctxret.text.chunk_text import prompt_chunk


def paid_by_batch(record: dict) -> bool:
    """An answer a batch backend collected (its record names the batch)."""
    return record.get("batch") is not None


def call_cost(record: dict, table: dict) -> float:
    """What the service reported, else the usage priced by the table (at the batch prices for
    an answer a batch API gave)."""
    if record.get("cost_usd") is not None:
        return float(record["cost_usd"])
    row = model_prices(table, record["model"])
    if not paid_by_batch(record):
        return priced(record["usage"], row)
    batch = batch_prices(row)
    if batch is None:
        raise InputError(f"price table {table.get('version')}: model {record['model']!r} has no batch prices, "
                         f"which its batch answers were paid at (add `batch:` to its row in config/prices.yaml)")
    return priced(record["usage"], batch)


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


def input_share(usage: dict) -> dict:
    total = sum(usage[k] for k in INPUT_KINDS)
    return {"input_tokens_total": total,
            "cache_read_share": usage["cache_read_input_tokens"] / total if total else 0.0}


def summarize(records: list[dict], n_chunks: int, table: dict) -> dict:
    usage = {k: sum(r["usage"][k] for r in records) for k in USAGE_KEYS}
    discarded = Counter(d["cause"] for r in records for d in r.get("discarded", []))
    costs = [call_cost(r, table) for r in records]
    starts = [datetime.fromisoformat(r["started"]) for r in records if r.get("started")]
    ends = [datetime.fromisoformat(r["ended"]) for r in records if r.get("ended")]
    doc_tokens = document_tokens(records)
    cost = sum(costs)
    return {
        "results": len(records), "chunks": n_chunks, "failed": n_chunks - len(records),
        "calls": len(records) + sum(discarded.values()), "discarded": dict(discarded),
        "malformed_usage": sum(bool(r.get("usage_problem")) for r in records),
        "cache_not_reported": sum(bool(r.get("cache_not_reported")) for r in records),
        "priced_at": dict(Counter("batch" if paid_by_batch(r) else "online" for r in records)),
        "model_keys": dict(Counter(k for r in records for k in model_keys(r))),
        "turns": dict(Counter(r["num_turns"] for r in records)),
        "usage": usage, **input_share(usage),
        "cost_usd": cost, "cost_per_call": spread(costs),
        "first_start": min(starts).isoformat() if starts else None,
        "last_end": max(ends).isoformat() if ends else None,
        "elapsed_hours": (max(ends) - min(starts)).total_seconds() / 3600 if starts and ends else 0.0,
        "document_tokens": doc_tokens,
        "cost_per_million_document_tokens": cost / doc_tokens * 1e6 if doc_tokens else None,
    }


def estimate(docs: list[dict], chunks: list[dict], prompt: Prompt, extra: str, prices: dict,
             output_tokens: int, backend: str) -> dict:
    """Expected usage if every chunk is called once, a document's chunks one after another: the
    first call of a document sends the system prompt (the document) as the backend's
    `cache["first"]`, later calls read it from the cache, the user message is `cache["user"]`
    in every call (ctxret.contexts.llm.BACKENDS); tokens from characters by the table's chars_per_token,
    `output_tokens` per call. That usage priced online and by batch (None: the table states no
    batch prices); `cost_usd` is what `backend` pays."""
    cache = backend_spec(backend).cache
    if cache is None:
        raise InputError(f"estimate: no cache model for backend {backend!r}")
    cpt = float(prices["chars_per_token"])
    system = {d["slug"]: len(prompt.system_for(d["body"])) / cpt for d in docs}
    usage = dict.fromkeys(USAGE_KEYS, 0.0)
    seen: set[str] = set()
    for c in chunks:
        usage["cache_read_input_tokens" if c["slug"] in seen else cache["first"]] += system[c["slug"]]
        usage[cache["user"]] += len(prompt.user_for(prompt_chunk(c), extra)) / cpt
        usage["output_tokens"] += output_tokens
        seen.add(c["slug"])
    usage = {k: int(round(v)) for k, v in usage.items()}
    batch = batch_prices(prices)
    online_cost, batch_cost = priced(usage, prices), (priced(usage, batch) if batch else None)
    if backend_spec(backend).batch and batch_cost is None:
        raise InputError(f"estimate: backend {backend!r} pays batch prices and the price table states none "
                         f"for this model (add `batch:` to its row in config/prices.yaml)")
    return {"calls": len(chunks), "usage": usage, **input_share(usage),
            "cost_usd": batch_cost if backend_spec(backend).batch else online_cost,
            "online_cost_usd": online_cost, "batch_cost_usd": batch_cost,
            "pays": "batch" if backend_spec(backend).batch else "online"}


def over_window(docs: list[dict], chunks: list[dict], prompt: Prompt, extra: str, prices: dict,
                output_tokens: int) -> dict[str, int]:
    """{slug: tokens} of the documents one call cannot hold: the system part, the document's
    longest user message and the expected output, over the model's context_window."""
    cpt, window = float(prices["chars_per_token"]), int(prices["context_window"])
    longest: dict[str, int] = {}
    for c in chunks:
        longest[c["slug"]] = max(longest.get(c["slug"], 0), len(prompt.user_for(prompt_chunk(c), extra)))
    need = {d["slug"]: int((len(prompt.system_for(d["body"])) + longest.get(d["slug"], 0)) / cpt) + output_tokens
            for d in docs}
    return {slug: n for slug, n in need.items() if n > window}


FIGURES = ("calls", "input, uncached", "input, cache write", "input, cache read", "input, total",
           "cache-read share", "output", "dollars")


def figures(s: dict) -> dict:
    """The figures an estimate and a ledger share (either's dict)."""
    u = s["usage"]
    return dict(zip(FIGURES, (s["calls"], u["input_tokens"], u["cache_creation_input_tokens"],
                              u["cache_read_input_tokens"], s["input_tokens_total"],
                              s["cache_read_share"], u["output_tokens"], s["cost_usd"])))


# the figures a server that states no cached tokens leaves unknown (its input all counted uncached)
CACHE_FIGURES = ("input, uncached", "input, cache read", "cache-read share")


def cache_unreported(s: dict) -> bool:
    """No answer of the ledger `s` stated its cached tokens (a server such as Ollama)."""
    return bool(s["results"]) and s.get("cache_not_reported", 0) == s["results"]


def versus(estimated: dict, measured: dict) -> dict:
    """{figure: {estimate, ledger, error_pct}}: error = (estimate - ledger) / ledger, None at 0; the
    cache figures of a ledger whose server stated no cached tokens are None, `not_reported`."""
    e, m = figures(estimated), figures(measured)
    unknown = CACHE_FIGURES if cache_unreported(measured) else ()
    return {k: {"estimate": e[k], "ledger": None, "error_pct": None, "not_reported": True} if k in unknown else
            {"estimate": e[k], "ledger": m[k], "error_pct": (e[k] - m[k]) / m[k] * 100 if m[k] else None}
            for k in FIGURES}
