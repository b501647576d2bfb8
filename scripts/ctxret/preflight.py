"""What would fail only later, checked while the workflow is read, before any job: the prompt and
the price table, the LLM backend (its executable, its key's variable), the price of its model,
every model's weights when offline, and the Qdrant server when one is named."""
from __future__ import annotations

from .ledger import model_prices
from .prices import load_prices
from .llm import make_backend, priced_model
from .models import is_bundled, model_dir
from .plan import PAID_VARIANT, Plan
from .prompt import read_prompt


def check_before_paying(p: Plan, prompt: str, prices: str) -> None:
    """InputError for the first thing that would fail."""
    config = p.config
    read_prompt(prompt)
    table = load_prices(prices)
    if PAID_VARIANT in p.context_variants:
        make_backend(p.context_variants[PAID_VARIANT])
        model_prices(table, priced_model(p.context_variants[PAID_VARIANT]))
    if config["qdrant"]["url"]:
        from .qdrant import server_client  # qdrant-client: imported only for a server

        with server_client(config["qdrant"]["url"], config["qdrant"]["api_key_env"]):
            pass
    hub = [slot for slot in p.models.values() if not is_bundled(slot)]
    for settings in hub + ([config["rerank"]] if config["rerank"]["enabled"] else []):
        model_dir(settings, config["offline"])
