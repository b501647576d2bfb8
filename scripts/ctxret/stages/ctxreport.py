"""Context reports: the estimate before spending, and the ledger after (stats), side by side."""
from __future__ import annotations

from ..errors import InputError
from ..fileio import read_json, read_jsonl, write_json
from ..ledger import estimate, model_prices, over_window, summarize, versus
from ..prices import load_prices
from ..presentation.ledger_text import estimate_lines, stats_lines, versus_lines
from ..llm import priced_model
from ..prompt import read_prompt


def run_stats(input, output, params, **_) -> None:
    """The ledger of a context variant; beside its estimate when the variant has one (A1:
    input.estimate is a list of at most one file)."""
    records = [r for path in input.contexts for r in read_jsonl(path)]
    n_chunks = len(read_jsonl(input.chunks))
    table = load_prices(input.prices)
    summary = summarize(records, n_chunks, table)
    if input.estimate:
        summary["vs_estimate"] = versus(read_json(input.estimate[0]), summary)
    write_json(output.json, summary)
    for line in stats_lines(params.variant, summary):
        print(line)
    if "vs_estimate" in summary:
        for line in versus_lines(params.variant, summary["vs_estimate"], table["version"]):
            print(line)


def run_estimate(input, output, params, **_) -> None:
    """What the contexts will cost, written before any call; stops the run, naming them, when
    a document is too long for one call of the model."""
    table = load_prices(input.prices)
    model, backend = priced_model(params.llm), params.llm["backend"]
    prices = model_prices(table, model)
    docs, chunks, prompt = read_jsonl(input.docs), read_jsonl(input.chunks), read_prompt(input.template)
    too_long = over_window(docs, chunks, prompt, params.extra_sentence, prices, int(params.output_tokens))
    if too_long:
        raise InputError(f"{len(too_long)} documents are too long for one call of {model} (context_window "
                         f"{prices['context_window']:,} tokens in {input.prices}): "
                         + ", ".join(f"{slug} (~{n:,} tokens)" for slug, n in too_long.items())
                         + "; leave them out of the corpus or choose a model with a larger window")
    e = estimate(docs, chunks, prompt, params.extra_sentence, prices, int(params.output_tokens), backend)
    write_json(output.json, {**e, "backend": backend, "model": model, "prices_version": table["version"]})
    for line in estimate_lines(e, model, backend, table["version"]):
        print(line)
    print(f"documents longer than one call of {model} can hold ({prices['context_window']:,} tokens): 0")
