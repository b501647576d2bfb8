"""contexts_free: the free variant (X1), every document in one job (milliseconds a document),
never stored. Each context is the fullest form that keeps X1 within the limits of the models that
embed it wherever T1 is (ctxret.llm.heuristic)."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..chunktext import with_context
from ..docctx import documents_with_chunks, write_document
from ..llm.heuristic import HeuristicBackend
from ..prompt import read_prompt


def token_fit(models: dict, offline: bool, template: str) -> Callable[[str, dict], bool]:
    """fits(context, chunk): the chunk's context variant text is within max_length for every
    model slot in `models` that truncates longer texts (a windowing model loses nothing)."""
    from ..models import load_tokenizer
    limits = [(load_tokenizer(dict(s), offline), int(s["max_length"])) for s in models.values()]
    limits = [(counter, n) for counter, n in limits if counter.long_texts == "truncated"]

    def fits(context: str, chunk: dict) -> bool:
        text = with_context(context, chunk, template)
        return all(counter.token_counts([text], "passage")[0] <= n for counter, n in limits)
    return fits


def run(input, output, params, **_) -> None:
    paths = [Path(p) for p in output]
    fits = token_fit(dict(params.models), bool(params.offline), params.t1_template)
    backend = HeuristicBackend(dict(params.llm), fits)
    prompt = read_prompt(input.template)
    for path, (doc, chunks) in zip(paths, documents_with_chunks(input.docs, input.chunks,
                                                                [p.stem for p in paths]).values()):
        print(write_document(path, params.variant, doc, chunks, backend, prompt, params, None))
    forms = ", ".join(f"{name} {backend.chosen[name]}" for name in ("fullest", "shorter", "head", "none"))
    print(f"{params.variant} contexts by form: {forms} (each the fullest that keeps the text within every "
          f"truncating model's max_length where T1 is; the head sentence alone where T1 itself is over)")
