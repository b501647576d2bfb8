"""The price table (config/prices.yaml, $ per million tokens, with characters per token for
estimates and each model's context window): read and checked (`load_prices`), a model's row
(`model_prices`), its batch prices (`batch_prices`), what a usage costs (`priced`), and what
generating questions costs (`generation_cost`). Imports no backend, so a stage that only prices
needs no SDK.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from ctxret.errors import InputError
from ctxret.yaml_lines import where

PRICE_KINDS = ("input", "output", "cache_write", "cache_read")   # $ per million tokens
PRICE_FIELDS = (*PRICE_KINDS, "chars_per_token", "context_window")


def price_problem(table) -> tuple[list, str] | None:
    """(key path, what is wrong) of the first problem of a price table, or None."""
    if not isinstance(table, dict) or not isinstance(table.get("models"), dict) or not table["models"]:
        return [], "a price table is a mapping with `version` and `models` (each model name: its prices)"
    if not isinstance(table.get("version"), (str, int)):
        return ["version"], "missing: the table's version, written into every estimate and ledger"
    for name, row in table["models"].items():
        if not isinstance(row, dict):
            return ["models", name], "a mapping of prices ($ per million tokens) and the model's limits"
        for field in PRICE_FIELDS:
            value = row.get(field)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                return ["models", name, field], f"{'missing' if value is None else repr(value)}: a number >= 0 is needed"
        if "batch" in row:
            if not isinstance(row["batch"], dict):
                return ["models", name, "batch"], "a mapping of the batch APIs' prices (input, output, cache_write, cache_read)"
            for field in PRICE_KINDS:
                value = row["batch"].get(field)
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                    return (["models", name, "batch", field],
                            f"{'missing' if value is None else repr(value)}: a number >= 0 is needed")
    return None


def model_prices(table: dict, model: str) -> dict:
    """The price row for a model name or alias; InputError when the table lacks it."""
    for name, row in table["models"].items():
        if model == name or model in row.get("aliases", []):
            return row
    raise InputError(f"price table {table.get('version')}: no prices for model {model!r} "
                     f"(add it to config/prices.yaml)")


def batch_prices(row: dict) -> dict | None:
    """The price row with the batch APIs' prices in place of the online ones; None when the
    table states none for this model."""
    return None if row.get("batch") is None else {**row, **row["batch"]}


def priced(usage: dict, prices: dict) -> float:
    return (usage["input_tokens"] * prices["input"] + usage["output_tokens"] * prices["output"]
            + usage["cache_creation_input_tokens"] * prices["cache_write"]
            + usage["cache_read_input_tokens"] * prices["cache_read"]) / 1e6


def generation_cost(questions: int, prompt_chars: float, output_tokens: int, row: dict) -> dict:
    """What asking for `questions` generated questions costs by a price row, online and by the
    batch API when the row has batch prices: each call a prompt of `prompt_chars` characters (the
    prompt and a mean chunk; row chars_per_token) and `output_tokens` tokens of reply, nothing cached."""
    tokens_in = prompt_chars / row["chars_per_token"]
    usage = {"input_tokens": questions * tokens_in, "output_tokens": questions * output_tokens,
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    batch = batch_prices(row)
    return {"questions": questions, "input_tokens_per_call": round(tokens_in), "output_tokens_per_call": output_tokens,
            "online_usd": round(priced(usage, row), 4), "batch_usd": round(priced(usage, batch), 4) if batch else None}


def load_prices(path: str) -> dict:
    """The price table (contexts.prices), checked: InputError naming the file, line and field."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read the price table ({getattr(e, 'strerror', None) or e}); "
                         f"contexts.prices names it") from None
    try:
        table = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise InputError(f"{path}{f':{mark.line + 1}' if mark else ''}: the price table is not valid YAML "
                         f"({getattr(e, 'problem', None) or e})") from None
    problem = price_problem(table)
    if problem:
        key, message = problem
        raise InputError(f"{where((path,), key)}: {'.'.join(map(str, key)) or '(top level)'}: {message}")
    return table
