"""The configuration: config/schema.yaml is the one home of every default.

`complete(config)` validates a configuration against the schema and fills in every default; a
question set given as a bare path is a JSONL set. A problem is one InputError naming the key.
"""
from __future__ import annotations

import copy
from pathlib import Path

import yaml

from .errors import InputError

SCHEMA = Path(__file__).resolve().parents[2] / "config" / "schema.yaml"


def load_schema() -> dict:
    with open(SCHEMA, encoding="utf-8") as f:
        return yaml.safe_load(f)


def _defaulting_validator(schema: dict):
    from jsonschema import Draft202012Validator, validators

    check_properties = Draft202012Validator.VALIDATORS["properties"]

    def properties(validator, props, instance, subschema):
        if isinstance(instance, dict):
            for name, sub in props.items():
                if "default" in sub and name not in instance:
                    instance[name] = copy.deepcopy(sub["default"])
        yield from check_properties(validator, props, instance, subschema)

    return validators.extend(Draft202012Validator, {"properties": properties})(schema)


def key_path(path) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def complete(config: dict, source: str = "config") -> dict:
    """A copy of `config` with every default filled in; InputError for the first problem found."""
    config = copy.deepcopy(config)
    sets = (config.get("questions") or {}).get("sets")
    if isinstance(sets, dict):
        for name, value in sets.items():
            if isinstance(value, str):
                sets[name] = {"format": "jsonl", "path": value}
    from jsonschema.exceptions import best_match
    error = best_match(_defaulting_validator(load_schema()).iter_errors(config))
    if error is not None:
        raise InputError(f"{source}: {key_path(error.absolute_path)}: {error.message}")
    return config
