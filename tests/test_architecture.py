"""The import rule of docs/architecture.md, read off the code: library modules below (ctxret/ and
its subpackages), presentation above them (ctxret/presentation/), stages on top (ctxret/stages/);
no arrow sideways (a stage importing a stage) or up; no cycles."""
import ast
import re
from pathlib import Path

from workflow import ROOT

SCRIPTS = ROOT / "scripts"
PACKAGE = SCRIPTS / "ctxret"


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(SCRIPTS).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The ctxret modules `name` imports (a package's own submodules included)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                out.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in known else target)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {m for m in out if m in known and m != name}


def stages() -> set[str]:
    """The stage modules: the folder ctxret/stages."""
    return {m for m in modules() if m.startswith("ctxret.stages.")}


def presentation() -> set[str]:
    """The presentation modules: the folder ctxret/presentation."""
    return {m for m in modules() if m.startswith("ctxret.presentation.")}


def entry_points() -> set[str]:
    """The modules the rules run (through scripts/stage.py, by ctxret.stages.ENTRIES)."""
    from ctxret.stages import ENTRIES
    return {f"ctxret.stages.{target.rsplit('.', 1)[0]}" for target in ENTRIES.values()}


def layer(module: str, stage: set[str], shown: set[str]) -> int:
    return 2 if module in stage else 1 if module in shown else 0


def package(module: str) -> str:
    """The package a module belongs to: a library subpackage (chunkers, importers, llm) is one."""
    parts = module.split(".")
    return ".".join(parts[:3] if parts[1:2] in (["stages"], ["presentation"]) else parts[:2])


def test_no_import_points_sideways_or_up_and_there_is_no_cycle():
    known = modules()
    stage, shown = stages(), presentation()
    assert stage <= set(known) and shown <= set(known) and not stage & shown
    graph = {m: imports(m, p, known) for m, p in known.items()}
    wrong = [f"{a} -> {b}" for a, targets in graph.items() for b in targets
             if package(a) != package(b)
             and (layer(b, stage, shown) > layer(a, stage, shown)
                  or layer(b, stage, shown) == layer(a, stage, shown) == 2)]
    assert wrong == [], "imports pointing sideways or up:\n" + "\n".join(wrong)
    # no cycle: repeatedly remove modules that import nothing left
    left = {m: {t for t in targets if package(t) != package(m)} for m, targets in graph.items()}
    while True:
        leaves = {m for m, targets in left.items() if not targets & set(left)}
        if not leaves:
            break
        left = {m: t for m, t in left.items() if m not in leaves}
    assert not left, f"import cycle among {sorted(left)}"


def test_the_folders_are_the_layers_the_document_names():
    """Every stage module is run by a rule and has a run(); every rule runs a stage function
    through the one entry script; docs/architecture.md lists the folders' modules as they are."""
    from ctxret.stages import ENTRIES, entry
    known = modules()
    assert entry_points() == stages()
    assert [p.name for p in SCRIPTS.glob("*.py")] == ["stage.py"]
    scripts = dict(re.findall(r"^\s*rule (\w+):\n(?:(?:[ \t]+.*)?\n)*?\s+script:\s*\n\s+\"([^\"]+)\"",
                              "".join(p.read_text(encoding="utf-8") for p in (ROOT / "rules").glob("*.smk")), re.M))
    assert set(scripts) == set(ENTRIES) and set(scripts.values()) == {"../scripts/stage.py"}
    assert all(callable(entry(rule)) for rule in ENTRIES)
    for module in stages():
        assert re.search(r"^def run\w*\(", known[module].read_text(encoding="utf-8"), re.M), module
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for folder, found in (("stages", stages()), ("presentation", presentation())):
        line = next(line for line in doc.splitlines() if line.strip().startswith(f"`ctxret/{folder}/`:"))
        assert {f"ctxret.{folder}.{m}" for m in re.findall(r"`(\w+)`", line)} == found, folder
