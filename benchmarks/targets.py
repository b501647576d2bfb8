"""What every benchmark prints: the machine's load, and one line per target that
`bench_all.py` (make bench) collects into its closing table."""
from __future__ import annotations

import os

PREFIX = "[target]"
SEP = " | "


def load_line() -> str:
    return "load average {:.2f} {:.2f} {:.2f} (1, 5, 15 min)".format(*os.getloadavg())


def target(stage: str, figure: str, goal: str, ok: bool) -> None:
    """`[target] stage | figure | goal | PASS/FAIL`, with the load at that moment."""
    print(SEP.join([f"{PREFIX} {stage}", figure, goal, "PASS" if ok else "FAIL", f"load {os.getloadavg()[0]:.2f}"]),
          flush=True)


def parse(line: str) -> list[str] | None:
    """The fields of a target line (stage, figure, goal, verdict, load), or None."""
    if not line.startswith(PREFIX):
        return None
    return line[len(PREFIX):].strip().split(SEP)
