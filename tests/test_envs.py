"""Every rule's conda environment holds what its stage imports.

For each rule of rules/*.smk: its stage module (its `script:`), then every ctxret module it reaches (imports inside
functions included, followed transitively) are read statically; each third-party top-level
import must belong to a package listed in the rule's env file (conda or pip entries).
"""
import ast
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
# a rule at the top level or under an `if`/`else` (rules/contexts.smk), with its body
RULE = re.compile(r"^([ \t]*)(?:rule|checkpoint) (\w+):\n((?:\1[ \t]+.*\n|\n)*)", re.M)
DIRECTIVE = r"^{}    {}:\s*\n\s+\"([^\"]+)\""


def rules() -> dict[str, tuple[Path, Path]]:
    """{rule: (stage module, env file)} for every rule that runs a script (its stage module)."""
    found = {}
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        for indent, name, body in RULE.findall(smk.read_text(encoding="utf-8")):
            script = re.search(DIRECTIVE.format(indent, "script"), body, re.M)
            if script:
                env = re.search(DIRECTIVE.format(indent, "conda"), body, re.M)
                assert env, f"{smk.name}: rule {name} runs a script without a conda env"
                found[name] = ((smk.parent / script[1]).resolve(), (smk.parent / env[1]).resolve())
    return found


def module_path(name: str) -> Path:
    base = SCRIPTS.joinpath(*name.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def imports(path: Path, package: str) -> tuple[set[str], set[str]]:
    """(ctxret modules, other top-level names) imported anywhere in the file."""
    own, other = set(), set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
                names = [stem] + [f"{stem}.{a.name}" for a in node.names]
            else:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] == "ctxret":  # the module and the packages it runs on import
                parts = name.split(".")
                own |= {m for m in (".".join(parts[:i]) for i in range(1, len(parts) + 1))
                        if module_path(m).exists()}
            else:
                other.add(name.split(".")[0])
    return own, other


def third_party_imports(stage: Path) -> set[str]:
    """Top-level third-party modules the stage module reaches, through ctxret transitively."""
    todo, seen, found = [(stage, "ctxret.stages")], set(), set()
    while todo:
        path, package = todo.pop()
        own, other = imports(path, package)
        found |= other
        for name in own:
            target = module_path(name)
            if target not in seen:
                seen.add(target)
                todo.append((target, name if target.name == "__init__.py" else name.rpartition(".")[0]))
    return {m for m in found if m not in sys.stdlib_module_names}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def env_packages(env: Path) -> set[str]:
    spec = yaml.safe_load(env.read_text(encoding="utf-8"))
    names = set()
    for dep in spec["dependencies"]:
        for entry in dep["pip"] if isinstance(dep, dict) else [dep]:
            names.add(normalized(re.split(r"[=<>!~ \[]", entry, maxsplit=1)[0]))
    return names


RULES = rules()


def test_the_rules_are_found():
    assert {"contexts", "contexts_batch", "contexts_free", "contexts_shards", "embed_chunks", "index", "score"} <= set(RULES)


@pytest.mark.parametrize("rule", sorted(RULES))
def test_the_env_of_each_rule_holds_its_imports(rule):
    stage, env = RULES[rule]
    distributions = packages_distributions()
    packages = env_packages(env)
    missing = {}
    for module in sorted(third_party_imports(stage)):
        provided_by = {normalized(d) for d in distributions.get(module, [module])}
        if not provided_by & packages:
            missing[module] = sorted(provided_by)
    assert not missing, f"rule {rule}: {env.name} lacks the packages of {missing}"


def test_the_contexts_env_has_both_sdks():
    for rule in ("contexts", "contexts_batch"):
        stage, env = RULES[rule]
        assert {"anthropic", "openai"} <= third_party_imports(stage)
        assert {"anthropic", "openai"} <= env_packages(env)
