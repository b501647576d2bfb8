"""Context lengths (ctxlen): characters and tokens per model, the share of each context in its
language's script (Hangul for Korean, Kana for Japanese, ...), questions leaked."""
import re

import numpy as np

from ctxret.contexts.ledger import spread
from ctxret.fileio import read_jsonl, write_json
from ctxret.languages import language
from ctxret.languages.recognition import SCRIPTS
from ctxret.runtime.stage_runner import run_rule

# The scripts a context can be checked for (a language's checked_script): Hangul by its
# syllables, the others as recognition counts them.
CHECKED = {**SCRIPTS, "hangul": re.compile(r"[\uac00-\ud7a3]")}


def script_share(text: str, script: str) -> float:
    letters = [ch for ch in text if ch.isalpha()]
    return sum(1 for ch in letters if CHECKED[script].match(ch)) / len(letters) if letters else 0.0


def context_lengths(contexts: list[str], questions: list[str], script: str | None) -> dict:
    """Lengths and leaked questions; with `script`, how much of each context is in it."""
    leaked = [i for i, c in enumerate(contexts) if any(q in c for q in questions)]
    out = {"count": len(contexts), "chars": spread([len(c) for c in contexts]), "with_question_verbatim": len(leaked)}
    if script:
        shares = [script_share(c, script) for c in contexts]
        out.update({f"under_20pct_{script}": sum(1 for s in shares if s < 0.2),
                    f"{script}_share": {"min": min(shares), "median": float(np.median(shares))}})
    return out


def contexts_length(input, output, params, **_) -> None:
    from ctxret.embedding.models import load_tokenizer
    contexts = [r["context"] for path in input.contexts for r in read_jsonl(path)]
    questions = [q["question"] for q in read_jsonl(input.questions)]
    script = language(params.language).checked_script
    s = context_lengths(contexts, questions, script)
    s["tokens"] = {name: spread(load_tokenizer(dict(settings), bool(params.offline))
                                .token_counts(contexts, "passage"))
                   for name, settings in dict(params.models).items()}
    write_json(output.json, s)
    print(f"{params.variant}: contexts {s['count']}")
    for name, d in [("chars", s["chars"]), *((f"{m} tokens", t) for m, t in s["tokens"].items())]:
        print(f"  {name} min {d['min']:g}, median {d['median']:g}, p90 {d['p90']:g}, max {d['max']:g}")
    if script:
        print(f"  under 20 % {script.capitalize()} {s[f'under_20pct_{script}']} "
              f"(min {s[f'{script}_share']['min']:.2f}, median {s[f'{script}_share']['median']:.2f})")
    else:
        print(f"  script share not checked (corpus.language {params.language})")
    print(f"  contexts containing a question verbatim {s['with_question_verbatim']}")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
