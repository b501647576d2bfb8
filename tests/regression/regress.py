"""Expected-score regression runs, like the reproduction pages of IR toolkits.

    .venv/bin/python tests/regression/regress.py [case.yaml ...]     (make regress: every case)

A case (tests/regression/*.yaml) names a base experiment config, what it changes, and the
metrics its run must give, per condition and question group, to 3 decimals. The workflow runs
for real, in a fresh results directory; every metric prints as

    OK    bm25:T1  K  fail@5      measured 0.015  expected 0.015

and any FAIL (or a missing metric) makes the exit status 1. A change that moves a number
updates the case in the same commit and says why. The KorQuAD file is looked for where the
base config says, or at $CTXRET_KORQUAD; without it the case is skipped, saying so.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from ctxret.settings import merged

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).resolve().parent
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
SOURCE_ENV = "CTXRET_KORQUAD"


def load_case(path: Path) -> dict:
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    base = yaml.safe_load((ROOT / case["base"]).read_text(encoding="utf-8"))
    config = merged(base, case.get("config", {}))
    if os.environ.get(SOURCE_ENV) and config["corpus"].get("format") == "squad":
        config["corpus"]["path"] = os.environ[SOURCE_ENV]
    return {**case, "name": path.stem, "config": config}


def missing_source(case: dict) -> str | None:
    path = Path(case["config"]["corpus"]["path"])
    path = path if path.is_absolute() else ROOT / path
    return None if path.exists() else f"{path} not found (set {SOURCE_ENV} to the KorQuAD file)"


def run(case: dict, work: Path, store: str | None = None) -> tuple[dict, float]:
    """Run the case's workflow in `work`; (score.json, seconds)."""
    config = merged(case["config"], {"results": str(work / "results"), "store": store or str(work / "store")})
    path = work / "config.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    started = time.perf_counter()
    proc = subprocess.run([SNAKEMAKE, "--cores", "2", f"--configfile={path}"], cwd=ROOT,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{case['name']}: the workflow failed:\n{proc.stderr[-4000:]}")
    score = json.loads((work / "results" / "score.json").read_text(encoding="utf-8"))
    return score, time.perf_counter() - started


def metric(summary: dict, name: str) -> float:
    value = summary[name]
    return value["rate"] if isinstance(value, dict) else value


def compare(score: dict, expected: dict) -> list[tuple[bool, str]]:
    """(ok, printed line) per expected metric."""
    found = {(r["condition"], r["group"]): r["summary"] for r in score["results"]}
    lines = []
    for condition, groups in expected.items():
        for group, metrics in groups.items():
            for name, want in metrics.items():
                summary = found.get((condition, group))
                got = metric(summary, name) if summary is not None and name in summary else None
                ok = got is not None and round(got, 3) == round(float(want), 3)
                shown = "missing" if got is None else f"{got:.3f}"
                lines.append((ok, f"{'OK  ' if ok else 'FAIL'}  {condition:<10} {group:<4} {name:<10} "
                                  f"measured {shown}  expected {float(want):.3f}"))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cases", nargs="*", type=Path, help="case files (default: every tests/regression/*.yaml)")
    parser.add_argument("--store", help="content-addressed store to use (default: a fresh one per case)")
    args = parser.parse_args(argv)
    failed = 0
    for path in args.cases or sorted(CASES.glob("*.yaml")):
        case = load_case(path)
        why = missing_source(case)
        if why:
            print(f"SKIP  {case['name']}: {why}")
            failed += 1
            continue
        with tempfile.TemporaryDirectory(prefix=f"ctxret-{case['name']}-") as tmp:
            score, seconds = run(case, Path(tmp), args.store)
        lines = compare(score, case["expected"])
        print(f"{case['name']}: {case['about']} ({seconds:.0f} s)")
        for _, line in lines:
            print(f"  {line}")
        failed += sum(1 for ok, _ in lines if not ok)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
