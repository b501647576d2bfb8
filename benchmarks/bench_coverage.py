"""Coverage of the verdict's 95 % cluster-bootstrap interval, percentile (ctxret.evaluation.stats.
cluster_bootstrap_diff), beside BCa (cluster_bootstrap_bca) and the cluster-robust t interval
(cluster_t_interval), by simulation on data with a known
difference: clusters of two questions (an H question and its P paraphrase) whose paired failure
differences (+1, -1, 0) agree within a cluster with probability `--rho`, the true difference
(P(+1) - P(-1)) fixed; the share of simulated experiments whose interval holds it.

    .venv/bin/python benchmarks/bench_coverage.py [--experiments 2000] [--resamples 1000]

Target: BCa (and, reported beside it, cluster-t) within +-2 points of 95 % at every n (Monte Carlo sd at 2,000 experiments: 0.5 point).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from targets import load_line, target

from ctxret.evaluation.stats import cluster_bootstrap_bca, cluster_bootstrap_diff, cluster_t_interval

SIZES = (20, 56, 400)   # questions: a tiny set, the demo's, a KorQuAD-like run
TOLERANCE = 0.02


def experiment(rng, n: int, psi: float, diff: float, rho: float) -> np.ndarray:
    """n paired differences in n / 2 clusters of two."""
    p = [(psi + diff) / 2, (psi - diff) / 2, 1 - psi]
    first = rng.choice([1.0, -1.0, 0.0], size=n // 2, p=p)
    other = rng.choice([1.0, -1.0, 0.0], size=n // 2, p=p)
    second = np.where(rng.random(n // 2) < rho, first, other)
    return np.column_stack([first, second]).ravel()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--experiments", type=int, default=2000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--psi", type=float, default=0.3, help="discordance: share of questions that differ")
    ap.add_argument("--diff", type=float, default=0.1, help="the true failure-rate difference")
    ap.add_argument("--rho", type=float, default=0.5, help="chance a paraphrase repeats its question's difference")
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    print(load_line())
    print(f"true difference {args.diff}, discordance {args.psi}, within-cluster repeat {args.rho}, "
          f"{args.experiments} experiments, {args.resamples} resamples each")
    print(f"{'N':>5} | {'percentile':>10} {'BCa':>8} {'cluster-t':>10}")
    rng = np.random.default_rng(args.seed)
    worst = np.zeros(2)
    start = time.perf_counter()
    for n in SIZES:
        clusters = np.repeat(np.arange(n // 2), 2)
        covered = np.zeros(3)
        for e in range(args.experiments):
            d = experiment(rng, n, args.psi, args.diff, args.rho)
            zeros = np.zeros(n)
            for j, f in enumerate((cluster_bootstrap_diff, cluster_bootstrap_bca)):
                lo, hi = f(zeros, d, clusters, e, args.resamples)
                covered[j] += lo <= args.diff <= hi
            lo, hi = cluster_t_interval(zeros, d, clusters)
            covered[2] += lo <= args.diff <= hi
        pct, bca, student = covered / args.experiments
        worst = np.maximum(worst, np.abs(np.array([bca, student]) - 0.95))
        print(f"{n:>5} | {pct:>10.3f} {bca:>8.3f} {student:>10.3f}", flush=True)
    print(f"{time.perf_counter() - start:.0f} s")
    for name, w in zip(("BCa", "cluster-t"), worst):
        target("coverage", f"{name} coverage at most {w * 100:.1f} points from 95 %",
               f"within +-{TOLERANCE * 100:.0f} points at every n", w <= TOLERANCE)


if __name__ == "__main__":
    main()
