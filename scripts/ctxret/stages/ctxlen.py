"""Context lengths (ctxlen): characters and tokens per model, Hangul share (Korean corpora),
questions leaked."""
from __future__ import annotations

import re

import numpy as np

from ..fileio import read_jsonl, write_json
from ..language import checks_hangul
from ..ledger import spread

HANGUL = re.compile(r"[\uac00-\ud7a3]")


def hangul_share(text: str) -> float:
    letters = [ch for ch in text if ch.isalpha()]
    return sum(1 for ch in letters if HANGUL.match(ch)) / len(letters) if letters else 0.0


def context_lengths(contexts: list[str], questions: list[str], hangul: bool) -> dict:
    """Lengths and leaked questions; with `hangul`, how much of each context is Hangul."""
    leaked = [i for i, c in enumerate(contexts) if any(q in c for q in questions)]
    out = {"count": len(contexts), "chars": spread([len(c) for c in contexts]), "with_question_verbatim": len(leaked)}
    if hangul:
        shares = [hangul_share(c) for c in contexts]
        out.update(under_20pct_hangul=sum(1 for s in shares if s < 0.2),
                   hangul_share={"min": min(shares), "median": float(np.median(shares))})
    return out


def run(input, output, params, **_) -> None:
    from ..models import load_tokenizer
    contexts = [r["context"] for path in input.contexts for r in read_jsonl(path)]
    questions = [q["question"] for q in read_jsonl(input.questions)]
    s = context_lengths(contexts, questions, checks_hangul(params.language))
    s["tokens"] = {name: spread(load_tokenizer(dict(settings), bool(params.offline))
                                .token_counts(contexts, "passage"))
                   for name, settings in dict(params.models).items()}
    write_json(output.json, s)
    print(f"{params.variant}: contexts {s['count']}")
    for name, d in [("chars", s["chars"]), *((f"{m} tokens", t) for m, t in s["tokens"].items())]:
        print(f"  {name} min {d['min']:g}, median {d['median']:g}, p90 {d['p90']:g}, max {d['max']:g}")
    if "hangul_share" in s:
        print(f"  under 20 % Hangul {s['under_20pct_hangul']} (min {s['hangul_share']['min']:.2f}, "
              f"median {s['hangul_share']['median']:.2f})")
    else:
        print(f"  Hangul share not checked (corpus.language {params.language})")
    print(f"  contexts containing a question verbatim {s['with_question_verbatim']}")
