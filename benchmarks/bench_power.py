"""The power method against simulation: each test's predicted power (ctxret.evaluation.stats: paired_power
for the exact sign test, interval_power for the verdict's cluster-bootstrap interval) beside the
share of simulated paired data sets in which it rejects (ctxret.evaluation.power_simulation).

    .venv/bin/python benchmarks/bench_power.py [--reps 2000] [--resamples 1000]

Target: every simulated power within 5 points of the prediction (Monte Carlo error at 2,000
data sets: about 1 point).
"""
from __future__ import annotations

import argparse
import time

from targets import load_line, target

from ctxret.evaluation.power_simulation import simulated_power

# (questions, planning discordance, difference): KorQuAD-like and demo-like sizes, powers 0.4-0.9
CASES = [(80, 0.25, 0.125), (80, 0.15, 0.1), (200, 0.15, 0.06), (400, 0.1, 0.04), (400, 0.06, 0.03),
         (1000, 0.05, 0.02)]
TOLERANCE = 0.05


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    print(load_line())
    print(f"{'N':>5} {'psi':>6} {'diff':>6} | {'sign test: predicted':>20} {'simulated':>10} | "
          f"{'interval: predicted':>20} {'simulated':>10}")
    worst = 0.0
    start = time.perf_counter()
    for n, psi, diff in CASES:
        r = simulated_power(n, psi, diff, 0.05, args.reps, args.seed, args.resamples)
        worst = max(worst, abs(r["sign"] - r["predicted_sign"]), abs(r["bootstrap"] - r["predicted_interval"]))
        print(f"{n:>5} {psi:>6.3f} {diff:>6.3f} | {r['predicted_sign']:>20.3f} {r['sign']:>10.3f} | "
              f"{r['predicted_interval']:>20.3f} {r['bootstrap']:>10.3f}", flush=True)
    print(f"{args.reps} data sets per case, {args.resamples} bootstrap resamples, {time.perf_counter() - start:.0f} s")
    target("power", f"largest |simulated - predicted| {worst * 100:.1f} points", f"<= {TOLERANCE * 100:.0f} points",
           worst <= TOLERANCE)


if __name__ == "__main__":
    main()
