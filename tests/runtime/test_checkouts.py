"""One venv, several checkouts (docs/slurm.md's advice shares one): every job of a run imports
the package of the checkout being run, not the one the venv was installed from."""
from __future__ import annotations

import shutil
import subprocess

from workflow import ROOT, SNAKEMAKE

SOURCES = ("Snakefile", "rules", "scripts", "config", "envs", "data", "questions")


def copy_checkout(to):
    to.mkdir()
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, to / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, to / name)
    return to


def prep_log(checkout, results) -> str:
    proc = subprocess.run([SNAKEMAKE, "--cores", "1", "--config", f"results={results}", f"store={results}-store",
                           "--", f"{results}/docs.jsonl"], cwd=checkout, capture_output=True, text=True)
    assert proc.returncode == 0, f"rc {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return (results / "logs" / "prep.log").read_text(encoding="utf-8")


def test_each_checkout_runs_its_own_code_whatever_venv_runs_it(tmp_path):
    other = copy_checkout(tmp_path / "other-checkout")
    prep = other / "scripts" / "ctxret" / "stages" / "prep.py"
    line = 'print(f"{corpus[\'format\']} {corpus[\'path\']}: documents'
    code = prep.read_text(encoding="utf-8")
    assert line in code
    prep.write_text(code.replace(line, 'print("run from the other checkout")\n    ' + line, 1), encoding="utf-8")
    assert "run from the other checkout" in prep_log(other, tmp_path / "other-results")
    assert "run from the other checkout" not in prep_log(ROOT, tmp_path / "own-results")
