"""What would fail only later, checked while the workflow is read, before any job: the prompt and
the price table, the LLM backend (its executable, its key's variable), the price of its model,
every model's weights when offline, and the Qdrant server when one is named."""
from __future__ import annotations

from .errors import InputError
from .ledger import batch_prices, model_prices
from .prices import load_prices
from .llm import backend_spec, make_backend, priced_model
from .models import is_bundled, model_dir
from .plan import PAID_VARIANT, Plan
from .prompt import read_prompt


def check_before_paying(p: Plan, prompt: str, prices: str) -> None:
    """InputError for the first thing that would fail."""
    config = p.config
    read_prompt(prompt)
    table = load_prices(prices)
    if PAID_VARIANT in p.context_variants:
        llm = p.context_variants[PAID_VARIANT]
        make_backend(llm)
        row = model_prices(table, priced_model(llm))
        if backend_spec(llm["backend"]).batch and batch_prices(row) is None:
            raise InputError(f"{prices}: model {priced_model(llm)!r} has no batch prices, which backend "
                             f"{llm['backend']!r} pays: add `batch: {{input, output, cache_write, cache_read}}` to its row")
    if config["qdrant"]["url"]:
        from .qdrant import server_client  # qdrant-client: imported only for a server

        with server_client(config["qdrant"]["url"], config["qdrant"]["api_key_env"]):
            pass
    hub = [slot for slot in p.models.values() if not is_bundled(slot)]
    for settings in hub + ([config["rerank"]] if config["rerank"]["enabled"] else []):
        model_dir(settings, config["offline"])
