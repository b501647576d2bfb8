"""Context lengths (ctxlen): characters and tokens per model, Hangul share, questions leaked."""
from __future__ import annotations

import re

import numpy as np

from .fileio import read_jsonl, write_json
from .ledger import spread

HANGUL = re.compile(r"[\uac00-\ud7a3]")


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


def run(input, output, params, **_) -> None:
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
