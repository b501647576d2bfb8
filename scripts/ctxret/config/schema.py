"""The configuration: config/schema.yaml is the one home of every default.

`complete(config)` validates a configuration against the schema and fills in every default; a
question set given as a bare path is a JSONL set, a model slot named like a default slot takes
what it leaves out from that slot. A problem is one InputError naming the key: a key written
twice in a file and a number that is not finite (.nan, .inf) are problems wherever they are.
"""
from __future__ import annotations

import copy
import math
import re
from pathlib import Path

import yaml

from ctxret.errors import InputError
from ctxret.fileio import read_text
from ctxret.yaml_lines import repeated_key, where

CHECKOUT = Path(__file__).resolve().parents[3]  # the workflow this package belongs to
SCHEMA = CHECKOUT / "config" / "schema.yaml"
MOVED = {("chunking", "max_chars"): "chunking.paragraph.max_chars"}  # a setting's old place: its new one
MODEL_BOUND = ("backend", "revision", "query_prefix", "passage_prefix")  # a default slot's keys that belong to its model


def registries() -> dict[str, list[str]]:
    """Each plug-in family's registered names, by the schema's `x-registry` label."""
    from ctxret.chunkers import CHUNKERS
    from ctxret.contexts.llm import BACKENDS
    from ctxret.embedding.models import EMBEDDING_BACKENDS
    from ctxret.importers import CORPUS_FORMATS, SET_FORMATS
    from ctxret.languages import LANGUAGES
    from ctxret.retrieval.bm25 import ANALYSERS
    return {"chunkers": list(CHUNKERS), "chunkers or empty": ["", *CHUNKERS],
            "corpus formats": list(CORPUS_FORMATS), "question-set formats": list(SET_FORMATS),
            "embedding backends": list(EMBEDDING_BACKENDS),
            "paid llm backends": [name for name, spec in BACKENDS.items() if spec.paid],
            "paid llm backends or empty": ["", *(name for name, spec in BACKENDS.items() if spec.paid)],
            "bm25 analysers or empty": ["", *ANALYSERS],
            "report languages or empty": ["", *sorted({lang.report for lang in LANGUAGES.values()}, reverse=True)]}


def backend_branches() -> list[dict]:
    """contexts.llm's `if/then` per paid backend of ctxret.contexts.llm.BACKENDS (and the empty backend,
    A1 skipped): each allows its own settings only, with their defaults."""
    from ctxret.contexts.llm import BACKENDS
    def branch(name: str, settings: dict) -> dict:
        then = {"additionalProperties": False, **({"required": settings["required"]} if settings.get("required") else {}),
                "properties": {"backend": {}, **copy.deepcopy(settings["properties"])}}
        return {"if": {"properties": {"backend": {"const": name}}}, "then": then}
    return [branch("", {"properties": {}}), *(branch(n, s.settings) for n, s in BACKENDS.items() if s.paid)]


def _fill_registries(node, names: dict[str, list[str]]) -> None:
    """Every `x-registry: <family>` of the schema becomes `enum: <the family's names>`; the
    `x-backend-settings` node gets the paid backends' settings (backend_branches)."""
    if isinstance(node, dict):
        if "x-registry" in node:
            node["enum"] = names[node["x-registry"]]
        if node.get("x-backend-settings"):
            node["allOf"] = backend_branches()
        for value in node.values():
            _fill_registries(value, names)
    elif isinstance(node, list):
        for value in node:
            _fill_registries(value, names)


def load_schema() -> dict:
    with open(SCHEMA, encoding="utf-8") as f:
        schema = yaml.safe_load(f)
    _fill_registries(schema, registries())
    return schema


def read_config(path: str) -> dict:
    """A YAML config file as a dict; InputError naming file and line for a syntax error."""
    text = read_text(path)   # missing, unreadable, a directory, not UTF-8: one line
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else path
        raise InputError(f"{where}: not valid YAML ({getattr(e, 'problem', None) or e})") from None
    if not isinstance(config, dict):
        raise InputError(f"{path}: a config file is a mapping of keys at the top level")
    return config


def read_configs(files: list[str]) -> dict:
    """Config files read in order, later ones winning key by key (as Snakemake merges them)."""
    config: dict = {}
    for path in files:
        config = merged(config, read_config(path))
    return config


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


def not_finite(node, path=()):
    """(path, value) of every NaN or infinite number in `node` (YAML's .nan, .inf)."""
    if isinstance(node, float) and not math.isfinite(node):
        yield list(path), node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from not_finite(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from not_finite(value, (*path, i))


def key_path(path) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def unexpected(error) -> list[str]:
    """For an unknown key, the key itself (so that its own line is named)."""
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        return [next(k for k in error.instance if k not in known)]
    return []


def complete(config: dict, sources: tuple[str, ...] = ("config",)) -> dict:
    """A copy of `config` (read from the YAML files `sources`) with every default filled in;
    InputError naming the file, line and key of the first problem found."""
    for repeated in filter(None, map(repeated_key, sources)):   # every config passes here: checked once
        raise InputError(repeated)
    config = copy.deepcopy(config)
    for path, value in not_finite(config):
        raise InputError(f"{where(sources, path)}: {key_path(path)}: {value} is not a finite number; write a number")
    sets = (config.get("questions") or {}).get("sets")
    if isinstance(sets, dict):
        for name, value in sets.items():
            if isinstance(value, str):
                sets[name] = {"format": "jsonl", "path": value}
            elif isinstance(value, dict) and "generate" in value:
                value.setdefault("format", "generated")
    for (section, key), now in MOVED.items():
        if isinstance(config.get(section), dict) and key in config[section]:
            raise InputError(f"{where(sources, [section, key])}: {section}.{key}: moved to {now}")
    schema = load_schema()
    _complete_slots(config.get("models"), schema["properties"]["models"]["default"], sources)
    from jsonschema.exceptions import best_match
    error = best_match(_defaulting_validator(schema).iter_errors(config))
    if error is not None:
        path = list(error.absolute_path)
        raise InputError(f"{where(sources, path + unexpected(error))}: {key_path(path)}: {error.message}")
    for i, pattern in enumerate(config["contexts"]["reply"]["refusal_patterns"]):
        try:
            re.compile(pattern)
        except re.error as e:
            path = ["contexts", "reply", "refusal_patterns", i]
            raise InputError(f"{where(sources, path)}: {key_path(path)}: {pattern!r} is not a regular expression "
                             f"({e})") from None
    return config


def _complete_slots(models, defaults: dict[str, dict], sources: tuple[str, ...]) -> None:
    """A model slot named like a default slot takes every key it leaves out from that slot (a
    slot naming another model takes none of the default model's own keys, MODEL_BOUND); a slot
    that then lacks backend or model is one line naming it."""
    if not isinstance(models, dict):
        return
    for name, slot in models.items():
        default = defaults.get(name)
        if not isinstance(slot, dict):
            continue
        if default is not None:
            own_model = slot.get("model", default["model"]) != default["model"]
            models[name] = slot = {**{k: v for k, v in default.items() if not (own_model and k in MODEL_BOUND)},
                                   **slot}
        missing = [k for k in ("backend", "model") if k not in slot]
        if missing:
            why = (f"a slot naming a model other than the default {name} slot's ({default['model']}) names its "
                   f"backend too" if default else
                   f"a new model slot names its backend and model (only a default slot, {', '.join(defaults)}, "
                   f"takes what it leaves out from its default)")
            raise InputError(f"{where(sources, ['models', name])}: models.{name}: {' and '.join(missing)} "
                             f"missing: {why}")


def schema_default(section: str, key: str):
    """What `section.key` is when a config leaves it out, items completed like a user's."""
    placeholder = {"corpus": {"path": "-"}, "questions": {"sets": {"Q": "-"}}}
    return complete(placeholder)[section][key]


def merged(base: dict, later: dict) -> dict:
    """`later` over `base`, key by key at every depth (as Snakemake merges config files)."""
    out = dict(base)
    for key, value in later.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out
