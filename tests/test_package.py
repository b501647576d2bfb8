"""The package installs: a wheel built from pyproject.toml holds every module of scripts/ctxret, and
every one of them imports from that wheel alone (installed apart, the checkout's scripts/ off the path)."""
import shutil
import subprocess
import sys
import zipfile

from workflow import ROOT

PACKAGE = ROOT / "scripts" / "ctxret"


def source_modules() -> set[str]:
    return {str(p.relative_to(ROOT / "scripts")) for p in PACKAGE.rglob("*.py")}


def test_the_wheel_holds_every_module_and_they_import_from_it(tmp_path):
    source = tmp_path / "source"   # a copy: building writes build/ and egg-info beside the sources
    shutil.copytree(PACKAGE, source / "scripts" / "ctxret", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", source)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(tmp_path / "dist"), str(source)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("ctxret-*.whl")
    held = {n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".py")}
    assert held == source_modules(), sorted(held ^ source_modules())
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                                "--target", str(tmp_path / "site"), str(wheel)], capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    names = sorted(m.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for m in held
                   if not m.endswith("__main__.py") and not m.endswith("ancient_edges.py"))  # (imported by Snakemake)
    # this interpreter's dependencies, the wheel's package, never the checkout's scripts/ (the editable install's path)
    script = ("import importlib, sys\n"
              f"sys.path = [{str(tmp_path / 'site')!r}] + [p for p in sys.path if p != {str(ROOT / 'scripts')!r}]\n"
              f"for name in {names!r}:\n"
              "    importlib.import_module(name)\n"
              "import ctxret\nprint(ctxret.__file__)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith(str(tmp_path / "site")), proc.stdout
    print(f"{wheel.name}: {len(held)} modules of {len(source_modules())}, each imported from it")
