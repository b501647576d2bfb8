"""contexts: an LLM variant (A1), one job per document, each paid answer paid once ever
(ctxret.contexts.per_document), or one job for every document by a batch API
(ctxret.contexts.batches); a variant read from a file (ctxret.contexts.given); the shards the
per-document jobs read; the estimate before spending and the ledger after (stats), side by side."""
from pathlib import Path

from ctxret.contexts.batches import Waiting, write_documents
from ctxret.contexts.given import GivenBackend, covering, read_given
from ctxret.contexts.ledger import estimate, over_window, summarize, versus
from ctxret.contexts.prices import load_prices, model_prices
from ctxret.contexts.llm import backend_spec, make_backend, priced_model
from ctxret.contexts.per_document import ContextStore, documents_with_chunks, write_document
from ctxret.contexts.prompt import read_prompt
from ctxret.contexts.replies import ReplyChecks
from ctxret.errors import InputError
from ctxret.fileio import read_json, read_jsonl, write_json
from ctxret.presentation.ledger_text import estimate_lines, stats_lines, versus_lines
from ctxret.runtime.stage_runner import run_rule


def contexts(input, output, params, **_) -> None:
    """An LLM variant (A1), one job per document: its shard in, its records out."""
    shard = read_json(input.shard)
    print(write_document(Path(output[0]), params.variant, shard["doc"], shard["chunks"],
                         make_backend(dict(params.llm)), read_prompt(input.template), params,
                         ContextStore(params.store), ReplyChecks.of(dict(params.reply))))


def contexts_batch(input, output, params, **_) -> None:
    """An LLM variant by a batch API (anthropic-batch, openai-batch): every document in one job, its records
    written once every chunk has a context (ctxret.contexts.batches)."""
    paths = {Path(p).stem: Path(p) for p in output}
    docs = documents_with_chunks(input.docs, input.chunks, list(paths))
    print(write_documents(paths, params.variant, docs, make_backend(dict(params.llm)), read_prompt(input.template),
                          params, Waiting(**params.batch), ReplyChecks.of(dict(params.reply))))


def contexts_file(input, output, params, **_) -> None:
    """A variant read from a file: every document in one job; InputError naming the chunks the
    file gives no context (nothing written then)."""
    paths = [Path(p) for p in output]
    docs = documents_with_chunks(input.docs, input.chunks, [p.stem for p in paths])
    checks, fields, position = ReplyChecks.of(dict(params.reply)), dict(params.fields), params.context_position
    given = read_given(input.given, fields, checks, position)
    backend = GivenBackend(input.given, covering(given, [c for _, chunks in docs.values() for c in chunks],
                                                 input.given, fields, checks, position))
    prompt = read_prompt(input.template)
    for path, (doc, chunks) in zip(paths, docs.values()):
        print(write_document(path, params.variant, doc, chunks, backend, prompt, params, None))


def contexts_shards(input, output, **_) -> None:
    """Each document with its chunks, one file per document: what an A1 job reads."""
    paths = [Path(p) for p in output]
    shards = documents_with_chunks(input.docs, input.chunks, [p.stem for p in paths])
    for path, (doc, chunks) in zip(paths, shards.values()):
        write_json(path, {"doc": doc, "chunks": chunks})
    print(f"shards: {len(paths)} documents, {sum(len(chunks) for _, chunks in shards.values())} chunks")


def contexts_stats(input, output, params, **_) -> None:
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


def contexts_estimate(input, output, params, **_) -> None:
    """What the contexts will cost, written before any call; stops the run, naming them, when
    a document is too long for one call of the model: its context window as the server states it
    (asked once, here), else the price row's."""
    table = load_prices(input.prices)
    llm = dict(params.llm)
    model, backend = priced_model(llm), llm["backend"]
    prices = model_prices(table, model)
    ask = backend_spec(backend).window
    window, source = (ask and ask(llm)) or (prices["context_window"], f"in {input.prices}")
    prices = {**prices, "context_window": window}
    docs, chunks, prompt = read_jsonl(input.docs), read_jsonl(input.chunks), read_prompt(input.template)
    too_long = over_window(docs, chunks, prompt, params.extra_sentence, prices, int(params.output_tokens))
    if too_long:
        raise InputError(f"{len(too_long)} documents are too long for one call of {model} (context_window "
                         f"{window:,} tokens {source}): "
                         + ", ".join(f"{slug} (~{n:,} tokens)" for slug, n in too_long.items())
                         + "; leave them out of the corpus or choose a model with a larger window")
    e = estimate(docs, chunks, prompt, params.extra_sentence, prices, int(params.output_tokens), backend)
    write_json(output.json, {**e, "backend": backend, "model": model, "prices_version": table["version"],
                             "context_window": {"tokens": window, "from": source}})
    for line in estimate_lines(e, model, backend, table["version"]):
        print(line)
    print(f"documents longer than one call of {model} can hold ({window:,} tokens, context_window {source}): 0")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
