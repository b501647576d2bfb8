"""The Plan is the one builder of names: no rule (rules/*.smk) and no stage (ctxret/stages/) spells
a results path or a condition name by hand; they read the Plan's (ctxret.config.layout, condition_name)."""
import ast
import inspect
import re

from conftest import settings
from workflow import ROOT

from ctxret.config.layout import Layout
from ctxret.config.plan import plan
from ctxret.languages import letters_by_script

# what only a results path holds: a folder of the results' layout, or a file name with a results
# file's extension (a suffix alone, ".trec", is an argument of a Plan name)
LAYOUT = re.compile(r"(?:^|[/{}])(?:var-|emb/|ctx/|runs/|index/|qdrant/|logs/|shards/|report/)"
                    r"|[\w}]\.(?:jsonl|json|npy|npz|trec|tsv|parquet|png|html|log|txt|md)$")
RESULTS_FOLDER = re.compile(r"\{(?:R|P\.results|config\[.results.\])\}")
# a condition written out: "{model}:{variant}", "bm25:{variant}", f"{r}:{v}"
CONDITION = re.compile(r"(?:\}|[\w.-]):\{")
RULE_STRING = re.compile(r"""(?<![\w"'])[frb]*("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")
# names a retriever or a variant holds, in an f-string's fields (a chunk id:unit is no condition)
CONDITION_PART = re.compile(r"\b(?:r|retriever|v|variant|model|hybrid|base|cond\w*)\b")


def rule_strings() -> list[tuple[str, int, str]]:
    """Every string literal of the rules (workflow files such as "../envs/x.yaml" left out)."""
    out = []
    for path in sorted((ROOT / "rules").glob("*.smk")) + [ROOT / "Snakefile"]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("  #")[0] if not line.lstrip().startswith("#") else ""
            out += [(path.name, number, m.group(1)[1:-1]) for m in RULE_STRING.finditer(code)
                    if not m.group(1)[1:].startswith("../")]
    return out


def test_no_rule_spells_a_results_path_or_a_condition():
    strings = rule_strings()
    assert len(strings) > 50   # the scan reads the rules' strings
    spelled = [f"{name}:{number}: {text!r}" for name, number, text in strings
               if LAYOUT.search(text) or RESULTS_FOLDER.search(text) or CONDITION.search(text)]
    assert spelled == [], "hand-formatted in rules (use the Plan's names):\n" + "\n".join(spelled)


def stage_findings(path) -> list[tuple[int, str, str]]:
    """(line, what, code) of a stage's f-strings and strings that spell a results path, of an
    f-string joining a retriever and a variant with ":", and of a name joined or split at ":"."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {id(node.body[0].value) for node in ast.walk(tree)   # docstrings
               if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
               and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    skipped |= {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            fields = " ".join(ast.unparse(v.value) for v in node.values if isinstance(v, ast.FormattedValue))
            if "/" in text and LAYOUT.search(text):
                out.append((node.lineno, "path", ast.unparse(node)))
            if "{}:{}" in text and CONDITION_PART.search(fields):
                out.append((node.lineno, "condition", ast.unparse(node)))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            if any(isinstance(p, ast.Constant) and isinstance(p.value, str) and LAYOUT.search(f"/{p.value}/")
                   for p in (node.left, node.right)):
                out.append((node.lineno, "path", ast.unparse(node)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("join", "split", "rsplit", "partition", "rpartition") \
                and any(isinstance(a, ast.Constant) and a.value == ":" for a in [node.func.value, *node.args]):
            out.append((node.lineno, "condition", ast.unparse(node)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped \
                and "/" in node.value and " " not in node.value and LAYOUT.search(node.value):
            out.append((node.lineno, "path", repr(node.value)))
    return sorted(out)


def test_no_stage_spells_a_results_path_or_a_condition():
    stages = sorted((ROOT / "scripts" / "ctxret" / "stages").glob("*.py"))
    assert len(stages) > 20
    found = [f"{path.name}:{line}: {what} {code}" for path in stages for line, what, code in stage_findings(path)]
    assert found == [], "hand-formatted in stages (take paths from the rule, names from condition_name):\n" \
                        + "\n".join(found)


def test_the_scans_catch_what_they_are_for(tmp_path):
    """Each way of spelling a path or a condition by hand, as it used to be written, is caught."""
    stage = tmp_path / "stage.py"
    stage.write_text('def run(input, output, params, r, v, results):\n'
                     '    a = f"{r}:{v}"\n'
                     '    b = [p for p in input.contexts if f"/ctx/{v}/" in p]\n'
                     '    c = results / "runs"\n'
                     '    d = a.rpartition(":")[0]\n'
                     '    e = f"{results}/var-{v}.jsonl"\n'
                     '    ok = f"{params.chunk}:{params.unit}", f"{output.md}: {len(a)} lines"\n', encoding="utf-8")
    assert [(line, what) for line, what, _ in stage_findings(stage)] == [
        (2, "condition"), (3, "path"), (4, "path"), (5, "condition"), (6, "path")]
    rules = ['f"{R}/var-{{variant}}.jsonl"', '"{model}:{variant}"', '"bm25:{variant}"', 'f"{r}:{v}"',
             'f"{P.results}/score.md"']
    assert all(LAYOUT.search(s) or RESULTS_FOLDER.search(s) or CONDITION.search(s) for s in rules)
    assert not any(LAYOUT.search(s) or CONDITION.search(s) for s in
                   ['{variant}', 'error: {error}', 'RR@{config}', '4 Chunking', r'\d+', 'A1'])


def test_a_name_given_wildcards_is_the_pattern_its_rule_matches(tmp_path):
    """Every Layout name called with wildcards, as a rule does, and filled in gives the file the
    Plan names for those values (so the run's targets are the rules' outputs)."""
    p = plan(settings(results=str(tmp_path / "results"), store=str(tmp_path / "store")), ROOT,
             letters_by_script(["카프카 컨슈머의 랙"]))
    values = ["T1", "e5", "03", "bm25"]
    checked = 0
    for name, method in inspect.getmembers(Layout, inspect.isfunction):
        required = [a for a in inspect.signature(method).parameters.values()
                    if a.name != "self" and a.default is inspect.Parameter.empty and a.kind is a.POSITIONAL_OR_KEYWORD]
        if name.startswith("_") or not required or name == "context_files":
            continue
        pattern = getattr(p, name)(*(f"{{w{i}}}" for i in range(len(required))))
        assert pattern.format(**{f"w{i}": v for i, v in enumerate(values)}) == getattr(p, name)(*values[:len(required)])
        assert pattern.startswith(p.results + "/")
        checked += 1
    assert checked >= 15
