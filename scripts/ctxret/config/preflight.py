"""What would fail only later, checked while the workflow is read, before any job: the prompt and
the price table, the LLM backend (its executable, its key's variable), the price of its model,
every record of a context variant's file and that it covers every chunk of the run, every model's
weights when offline, and the Qdrant server when one is named."""
from __future__ import annotations

from pathlib import Path

from ctxret.chunkers import CHUNKERS
from ctxret.chunkers.corpus import chunk_corpus
from ctxret.config.plan import GIVEN, Chunker, Plan, given_variants
from ctxret.contexts.given import Given, covering, read_given
from ctxret.contexts.prices import batch_prices, load_prices, model_prices
from ctxret.contexts.llm import backend_spec, make_backend, priced_model
from ctxret.contexts.prompt import read_prompt
from ctxret.contexts.replies import ReplyChecks
from ctxret.embedding.models import is_bundled, model_dir
from ctxret.errors import InputError
from ctxret.fileio import sha256_file, sha256_text
from ctxret.importers.selection import corpus_key, imported_corpus, kept
from ctxret.store import JsonStore, content_key

# The code whether a file covers the chunks depends on (cutting and naming chunks, reading and
# checking records; the documents' own code is in corpus_key): a new version checks again.
WINGS = Path(__file__).parents[1]


def coverage_code() -> str:
    """The digest of that code, read only by a run with a context file (not by every parse)."""
    return sha256_text("".join(p.read_text(encoding="utf-8") for p in [
        *sorted((WINGS / "chunkers").glob("*.py")), WINGS / "contexts" / "given.py", WINGS / "contexts" / "replies.py"]))


def check_before_paying(p: Plan, prompt: str, prices: str) -> None:
    """InputError for the first thing that would fail."""
    config = p.config
    read_prompt(prompt)
    table = load_prices(prices)
    for llm in (p.context_variants[v] for v in p.paid_variants):
        make_backend(llm)
        row = model_prices(table, priced_model(llm))
        if backend_spec(llm["backend"]).batch and batch_prices(row) is None:
            raise InputError(f"{prices}: model {priced_model(llm)!r} has no batch prices, which backend "
                             f"{llm['backend']!r} pays: add `batch: {{input, output, cache_write, cache_read}}` to its row")
    for name in given_variants(p.context_variants):
        spec, checks = p.context_variants[name], ReplyChecks.of(config["contexts"]["reply"])
        given = read_given(spec[GIVEN], spec["fields"], checks, spec["context_position"])
        if CHUNKERS[p.chunker.name].needs is None:  # a model's chunks are checked by the contexts_file job
            check_covered(p, spec, given, checks)
    if config["qdrant"]["url"]:
        from ctxret.retrieval.qdrant import server_client  # qdrant-client: imported only for a server

        with server_client(config["qdrant"]["url"], config["qdrant"]["api_key_env"]):
            pass
    hub = [slot for slot in p.models.values() if not is_bundled(slot)]
    for settings in hub + ([config["rerank"]] if config["rerank"]["enabled"] else []):
        model_dir(settings, config["offline"])


def kept_chunks(corpus: dict, store: str, chunker: Chunker) -> list[dict]:
    """The chunks the run's chunks job writes for `chunker` (one that reads no model): the kept
    documents as prep writes them, from the corpus the parse read (importers.selection), cut by
    the same function with the same settings."""
    return chunk_corpus(kept(imported_corpus(corpus, store)[0], corpus), chunker.settings, chunker.name)


def check_covered(p: Plan, spec: dict, given: dict[tuple[str, int | str], Given], checks: ReplyChecks) -> None:
    """InputError naming a context variant's file and the chunks of the run it gives no context
    (ctxret.contexts.given.covering, as the contexts_file job checks it). A file found covering is
    remembered in the store by all it depends on, so that a rerun cuts the corpus no more."""
    key = content_key(corpus=corpus_key(p.config["corpus"]), chunker=p.chunker.name, settings=p.chunker.settings,
                      file=sha256_file(spec[GIVEN]), fields=spec["fields"], position=spec["context_position"],
                      reply=p.config["contexts"]["reply"], code=coverage_code())

    def covered() -> dict:
        chunks = kept_chunks(p.config["corpus"], p.setting("store"), p.chunker)
        covering(given, chunks, spec[GIVEN], spec["fields"], checks, spec["context_position"])
        return {"chunks": len(chunks)}
    JsonStore(p.setting("store"), "given-covered").remembered(key, covered)
