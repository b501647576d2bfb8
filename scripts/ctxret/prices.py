"""The price table (contexts.prices, config/prices.yaml), read and checked."""
from __future__ import annotations

from pathlib import Path

import yaml

from .configlines import where
from .errors import InputError
from .ledger import price_problem


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
