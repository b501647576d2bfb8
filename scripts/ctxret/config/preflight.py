"""What would fail only later, checked while the workflow is read, before any job: the prompt and
the price table, the LLM backend (its executable, its key's variable), the price of its model,
every record of a context variant's file, every model's weights when offline, and the Qdrant
server when one is named."""
from __future__ import annotations

from ctxret.config.plan import GIVEN, Plan, given_variants
from ctxret.contexts.given import read_given
from ctxret.contexts.prices import batch_prices, load_prices, model_prices
from ctxret.contexts.llm import backend_spec, make_backend, priced_model
from ctxret.contexts.prompt import read_prompt
from ctxret.contexts.replies import ReplyChecks
from ctxret.embedding.models import is_bundled, model_dir
from ctxret.errors import InputError


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
        spec = p.context_variants[name]
        read_given(spec[GIVEN], spec["fields"], ReplyChecks.of(config["contexts"]["reply"]), spec["context_position"])
    if config["qdrant"]["url"]:
        from ctxret.retrieval.qdrant import server_client  # qdrant-client: imported only for a server

        with server_client(config["qdrant"]["url"], config["qdrant"]["api_key_env"]):
            pass
    hub = [slot for slot in p.models.values() if not is_bundled(slot)]
    for settings in hub + ([config["rerank"]] if config["rerank"]["enabled"] else []):
        model_dir(settings, config["offline"])
