"""The house as docs/architecture.md states it, read off the code: the package in wings, which wing
may import which (the document's table, the one statement of it), no cycle; every rule naming
the stage module and function it runs; named input functions and the Plan in rules/.

`python tests/test_architecture.py` prints the counts (modules at the top, import edges)."""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
PACKAGE = SCRIPTS / "ctxret"
DOC = ROOT / "docs" / "architecture.md"
RULE = re.compile(r"^([ \t]*)rule (\w+):\n((?:\1[ \t]+.*\n|\n)*)", re.M)


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(SCRIPTS).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The ctxret modules `name` imports, anywhere in the file (a package's own submodules included)."""
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


def graph() -> dict[str, set[str]]:
    known = modules()
    return {m: imports(m, p, known) for m, p in known.items()}


def wing_table() -> dict[str, tuple[set[str], set[str]]]:
    """docs/architecture.md's table: {wing: (its top-level names, the wings it may import)}; the
    shared leaves are the wing `leaves`, the commands the wing `commands`."""
    text = DOC.read_text(encoding="utf-8").split("## What a module may import", 1)[1].split("\n## ", 1)[0]
    table = {}
    for row in re.findall(r"^\| (.+?) \| .+? \| (.+?) \|$", text, re.M):
        label, _, members = row[0].partition(":")
        if label.startswith("`"):
            names = re.findall(r"`(\w+)`", members) or [label.strip("`")]
            table[label.strip("`")] = (set(names), set(re.findall(r"`(\w+)`", row[1])))
    return table


def wing_of(module: str, table: dict) -> str:
    top = module.split(".")[1] if "." in module else "__init__"
    return next(wing for wing, (names, _) in table.items() if top in names)


def test_every_top_level_module_is_in_one_wing_and_the_top_holds_few():
    table = wing_table()
    tops = {m.split(".")[1] for m in modules() if "." in m}
    named = [n for names, _ in table.values() for n in names]
    assert len(named) == len(set(named)) and tops == set(named) - {"__init__"}, sorted(tops ^ set(named))
    top_modules = [p for p in PACKAGE.glob("*.py")]
    assert len(top_modules) <= 12, sorted(p.name for p in top_modules)
    for init in PACKAGE.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "import" in doc, f"{init.parent.name}/__init__.py: its docstring names what it holds and may import"


def test_each_wing_imports_only_what_the_table_allows_and_there_is_no_cycle():
    table = wing_table()
    wrong = sorted(f"{a} -> {b}" for a, targets in graph().items() for b in targets
                   if wing_of(a, table) != wing_of(b, table)
                   and wing_of(b, table) not in table[wing_of(a, table)][1])
    assert wrong == [], "imports the table does not allow:\n" + "\n".join(wrong)
    stages = {m for m in modules() if m.startswith("ctxret.stages.")}
    assert not [(a, b) for a, t in graph().items() for b in t if a in stages and b in stages]
    left = graph()
    while left:   # repeatedly remove the modules that import nothing left
        leaves = {m for m, targets in left.items() if not targets & set(left)}
        if not leaves:
            break
        left = {m: t for m, t in left.items() if m not in leaves}
    assert not left, f"import cycle among {sorted(left)}"


def rules() -> dict[str, str]:
    """{rule: its body} of every rule in rules/*.smk."""
    return {name: body for smk in sorted((ROOT / "rules").glob("*.smk"))
            for _, name, body in RULE.findall(smk.read_text(encoding="utf-8"))}


def test_every_rule_names_the_stage_module_and_function_it_runs():
    stage_modules = {p.stem: p for p in (PACKAGE / "stages").glob("*.py") if p.name != "__init__.py"}
    run = {}
    for name, body in rules().items():
        script = re.search(r"script:\s*\n\s+\"([^\"]+)\"", body)
        if not script:
            continue
        assert script[1].startswith("../scripts/ctxret/stages/"), (name, script[1])
        module = Path(script[1]).stem
        assert name == module or name.startswith(module + "_"), f"rule {name} runs stages/{module}.py"
        source = stage_modules[module].read_text(encoding="utf-8")
        assert re.search(rf"^def {name}\(input, output", source, re.M), f"stages/{module}.py has no def {name}"
        run.setdefault(module, set()).add(name)
    assert set(run) == set(stage_modules), "a stage module no rule runs"
    for module, names in run.items():
        source = stage_modules[module].read_text(encoding="utf-8")
        assert set(re.findall(r"^def (\w+)\(input, output", source, re.M)) == names, module
        assert source.rstrip().endswith("run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)")
    assert not (SCRIPTS / "stage.py").exists()


def test_rules_read_settings_through_the_plan_and_name_their_input_functions():
    smk = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "rules").glob("*.smk")}
    lambdas = [f"{name}: rule {rule}" for name, text in smk.items()
               for _, rule, body in RULE.findall(text) if "lambda" in body]
    assert lambdas == []
    raw = [f"{name}:{i}" for name, text in smk.items() for i, line in enumerate(text.splitlines(), 1)
           if re.search(r"(?<![\w.])config\[", line)]
    assert raw == []


if __name__ == "__main__":
    g = graph()
    print(f"{len(g)} modules, {sum(map(len, g.values()))} import edges between them, "
          f"{len(list(PACKAGE.glob('*.py')))} modules at the package's top level")
