"""The context ledger and its estimate (ctxret.contexts.ledger) as the log lines of contexts_stats and
contexts_estimate: the ledger's summary, and the figures an estimate and a ledger share as a table."""
from __future__ import annotations

from ctxret.contexts.ledger import cache_unreported, figures


def stats_lines(variant: str, s: dict) -> list[str]:
    per_call = s["cost_per_call"]
    priced_at = ", ".join(f"{n:,} {kind}" for kind, n in sorted(s.get("priced_at", {}).items()))
    lines = [
        f"{variant}: results {s['results']}/{s['chunks']}, chunks left failed {s['failed']}, "
        f"discarded attempts {sum(s['discarded'].values())} {s['discarded']}",
        f"model keys {s['model_keys']}, num_turns {s['turns']}",
        f"input tokens {s['input_tokens_total']:,}, read from cache " + cache_share(s),
        f"cost ${s['cost_usd']:.2f} (answers at {priced_at or 'no'} prices)"
        + (f", per call min {per_call['min']:.4f}, median {per_call['median']:.4f}, "
           f"p90 {per_call['p90']:.4f}, max {per_call['max']:.4f}" if per_call else ""),
        f"first start {s['first_start']}, last end {s['last_end']}, elapsed {s['elapsed_hours']:.2f} h",
    ]
    if s.get("malformed_usage"):
        lines.append(f"answers whose usage or cost was malformed {s['malformed_usage']} (kept; their unreadable "
                     f"counts are 0, so the cost above is short by them: see usage_problem in their records)")
    if s["cost_per_million_document_tokens"] is not None:
        lines.append(f"document tokens {s['document_tokens']:,}, cost per million document tokens "
                     f"${s['cost_per_million_document_tokens']:.2f} (reference $56.54, original method $1.02)")
    return lines


def cache_share(s: dict) -> str:
    """The share of input read from the prompt cache, or that the server did not report it."""
    unreported = s.get("cache_not_reported", 0)
    if cache_unreported(s):
        return "not reported (the server states no cached tokens)"
    return f"{s['cache_read_share']:.3f}" + (f" ({unreported:,} answers did not report it)" if unreported else "")


def _figure(name: str, value: float) -> str:
    if name == "cache-read share":
        return f"{value:.3f}"
    return f"${value:,.2f}" if name == "dollars" else f"{value:,.0f}"


def figure_lines(title: str, columns: list[str], rows: dict[str, list]) -> list[str]:
    """A table: one line per figure, a column per source (None: "-", words as they are), errors in percent."""
    lines = [title, f"  {'':<20}" + "".join(f"{c:>14}" for c in columns)]
    for name, values in rows.items():
        cells = []
        for column, v in zip(columns, values):
            if v is None or isinstance(v, str):
                cells.append(f"{v or '-':>14}")
            elif column == "error":
                cells.append(f"{v:>+12.1f} %")
            else:
                cells.append(f"{_figure(name, v):>14}")
        lines.append(f"  {name:<20}" + "".join(cells))
    return lines


def estimate_lines(e: dict, model: str, backend: str, version: str) -> list[str]:
    return [*figure_lines(f"estimate for {backend} {model} (prices {version}), every chunk called once:",
                          ["estimate"], {k: [v] for k, v in figures(e).items()}), price_line(e, backend)]


def price_line(e: dict, backend: str) -> str:
    """The same usage priced online and by batch, and which of them `backend` pays."""
    online, batch = e["online_cost_usd"], e["batch_cost_usd"]
    if batch is None:
        return f"  online ${online:,.2f}; batch: no batch prices for this model; {backend} pays online"
    share = f" ({batch / online:.0%} of online)" if online else ""
    return f"  online ${online:,.2f}, batch ${batch:,.2f}{share}; {backend} pays the {e['pays']} price"


def versus_lines(variant: str, vs: dict, version: str) -> list[str]:
    return figure_lines(f"{variant}: the estimate before the run and the ledger (prices {version})",
                        ["estimate", "ledger", "error"],
                        {k: [f["estimate"], "not reported" if f.get("not_reported") else f["ledger"], f["error_pct"]]
                         for k, f in vs.items()})
