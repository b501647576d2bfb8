"""Context reports: the ledger (stats), the estimate before spending, context lengths (ctxlen)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import yaml

from .fileio import read_jsonl, write_json
from .ledger import estimate, estimate_lines, model_prices, spread, stats_lines, summarize

HANGUL = re.compile(r"[\uac00-\ud7a3]")


def load_prices(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def run_stats(input, output, params, **_) -> None:
    records = [r for path in input.contexts for r in read_jsonl(path)]
    n_chunks = len(read_jsonl(input.chunks))
    summary = summarize(records, n_chunks, load_prices(input.prices))
    write_json(output.json, summary)
    for line in stats_lines(params.variant, summary):
        print(line)


def run_estimate(input, output, params, **_) -> None:
    table = load_prices(input.prices)
    model = params.llm.get("model") or "opus"
    e = estimate(read_jsonl(input.docs), read_jsonl(input.chunks),
                 Path(input.template).read_text(encoding="utf-8"), params.extra_sentence,
                 model_prices(table, model), int(params.output_tokens))
    write_json(output.json, {**e, "model": model, "prices_version": table["version"]})
    for line in estimate_lines(e, model, table["version"]):
        print(line)


def hangul_share(text: str) -> float:
    letters = [ch for ch in text if ch.isalpha()]
    return sum(1 for ch in letters if HANGUL.match(ch)) / len(letters) if letters else 0.0


def context_lengths(contexts: list[str], questions: list[str]) -> dict:
    shares = [hangul_share(c) for c in contexts]
    leaked = [i for i, c in enumerate(contexts) if any(q in c for q in questions)]
    return {"count": len(contexts), "chars": spread([len(c) for c in contexts]),
            "under_20pct_hangul": sum(1 for s in shares if s < 0.2),
            "hangul_share": {"min": min(shares), "median": float(np.median(shares))},
            "with_question_verbatim": len(leaked)}


def run_ctxlen(input, output, params, **_) -> None:
    from .models import load_tokenizer
    contexts = [r["context"] for path in input.contexts for r in read_jsonl(path)]
    questions = [q["question"] for q in read_jsonl(input.questions)]
    s = context_lengths(contexts, questions)
    s["tokens"] = {name: spread(load_tokenizer(dict(settings), bool(params.offline))
                                .token_counts(contexts, "passage"))
                   for name, settings in dict(params.models).items()}
    write_json(output.json, s)
    print(f"{params.variant}: contexts {s['count']}")
    for name, d in [("chars", s["chars"]), *((f"{m} tokens", t) for m, t in s["tokens"].items())]:
        print(f"  {name} min {d['min']:g}, median {d['median']:g}, p90 {d['p90']:g}, max {d['max']:g}")
    print(f"  under 20 % Hangul {s['under_20pct_hangul']} (min {s['hangul_share']['min']:.2f}, "
          f"median {s['hangul_share']['median']:.2f})")
    print(f"  contexts containing a question verbatim {s['with_question_verbatim']}")
