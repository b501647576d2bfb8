"""contexts_free: the free variant (X1), every document in one job (milliseconds a document),
never stored. Each context is the fullest form that keeps X1 within the limits of the models that
embed it wherever T1 is (ctxret.contexts.llm.heuristic)."""
from pathlib import Path
from typing import Callable

from ctxret.contexts.llm.heuristic import HeuristicBackend
from ctxret.contexts.per_document import documents_with_chunks, write_document
from ctxret.contexts.prompt import read_prompt
from ctxret.runtime.stage_runner import run_rule
from ctxret.text.chunk_text import with_context


def token_fit(models: dict, offline: bool, template: str) -> Callable[[str, dict], bool]:
    """fits(context, chunk): the chunk's context variant text is within max_length for every
    model slot in `models` that truncates longer texts (a windowing model loses nothing)."""
    from ctxret.embedding.models import load_tokenizer
    limits = [(load_tokenizer(dict(s), offline), int(s["max_length"])) for s in models.values()]
    limits = [(counter, n) for counter, n in limits if counter.long_texts == "truncated"]

    def fits(context: str, chunk: dict) -> bool:
        text = with_context(context, chunk, template)
        return all(counter.token_counts([text], "passage")[0] <= n for counter, n in limits)
    return fits


def contexts_free(input, output, params, **_) -> None:
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


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
