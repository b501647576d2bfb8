"""Every benchmark, one after the other, then one table of their targets (`make bench`).

    .venv/bin/python benchmarks/bench_all.py [--only embed search scale]

Each benchmark runs in a process of its own with this checkout's `scripts/` first on the path,
prints its figures as it goes, and marks each target with a `[target]` line (targets.py); the
closing table gathers them with the load average at the moment each was measured.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from targets import load_line, parse

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BENCHMARKS = {"embed": ["bench_embed.py"], "search": ["bench_search.py"], "analysers": ["bench_analysers.py"],
              "scale": ["bench_scale.py"],
              "engine": ["bench_engine.py"], "shards": ["bench_shards.py"],
              "contexts": ["bench_contexts.py", "--scales", "1"],   # 10x: 35 min, run it on its own
              "power": ["bench_power.py"], "coverage": ["bench_coverage.py"]}


def run(command: list[str]) -> tuple[int, list[list[str]], float]:
    """(exit code, target rows, seconds) of one benchmark, its output passed through."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "scripts"), str(HERE),
                                                        os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(HERE / command[0]), *command[1:]], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=1)
    rows = []
    for line in proc.stdout:
        print(line, end="", flush=True)
        if (fields := parse(line.rstrip("\n"))) is not None:
            rows.append(fields)
    return proc.wait(), rows, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--only", nargs="+", choices=list(BENCHMARKS), default=list(BENCHMARKS))
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores; {load_line()}", flush=True)
    table, failed, took = [], [], {}
    for name in args.only:
        print(f"\n==== {' '.join(BENCHMARKS[name])} ====", flush=True)
        code, rows, took[name] = run(BENCHMARKS[name])
        table += rows
        if code:
            failed.append(f"{BENCHMARKS[name][0]} exited {code}")
    width = max((len(r[0]) for r in table), default=5)
    print(f"\n==== targets ({', '.join(f'{n} {s:.0f} s' for n, s in took.items())}; "
          f"total {sum(took.values()) / 60:.1f} min) ====")
    print(f"{'stage':<{width}}  {'figure':<44} {'target':<16} {'':<4}  load")
    for stage, figure, goal, verdict, load in table:
        print(f"{stage:<{width}}  {figure:<44} {goal:<16} {verdict:<4}  {load.removeprefix('load ')}")
    print(f"{load_line()} (end)")
    for line in failed:
        print(f"error: {line}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
