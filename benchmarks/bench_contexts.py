"""The context stage at the reference's size and at 10x, with an LLM that answers at once.

bench_scale's seeded synthetic corpus (88 documents x 50 chunks = 4,400 chunks at 1x) and its
Snakemake runner (wall time, the largest process's peak RSS). A1 runs the anthropic backend
against the loopback fake Messages API (tests/fakes/llm_servers.py), which answers instantly,
so what is timed is the workflow's own cost. Per scale, with --cores 2 and the default profile
(llm_workers=4):

- set-up: prep, chunks, qcheck, the estimate and the preregistration (what the A1 jobs wait
  for; its free runs embedded by bench_scale's tiny stand-in model, not the default e5);
- A1: `var-A1.jsonl` (per-document shards, one job per document, the variant file): time,
  calls, files written (results/, the store, Snakemake's .snakemake/), peak memory, and the most
  documents whose calls were in flight at once;
- X1: `var-X1.jsonl` (one job for every document): the same;
- a no-op rerun of both, and a rerun of both after deleting results/: 0 calls each;
- A1 by the Message Batches API (anthropic-batch, the same fake, batches ending at once) into a
  store of its own (so that it pays; the switch also reruns chunks, whose params name the store):
  one job for every document, the requests it submits, files written; then again with A1's
  files deleted: 0 requests submitted, the files one batch job writes;
- the same by the OpenAI Batch API (openai-batch, the fake OpenAI server's Batch and Files
  APIs), into a third store;
- then the store: one run's 4,400 vectors (384 floats) looked up in a store holding one run's
  entries and one holding 100 runs'.

Targets: 4 documents in flight at 1x; 0 calls on both reruns; by either batch API, as many
requests as A1's online calls, and 0 on its rerun; in results/ (logs aside), at most 2 files
written per document for A1 (shard, records) and 1 for X1 and for A1 by batch, besides the variant file
(nothing per chunk); every time at 10x <= 12x the
1x time; the lookup among 100 runs' entries <= 2x the lookup among one run's (an index search
grows with the logarithm of the entries; scanning every pack, as the store did before, grew
with their number).

    .venv/bin/python benchmarks/bench_contexts.py [--scales 1 10] [--workdir DIR] [--keep]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from bench_scale import GROWTH_PER_SCALE, ROOT, Invocation, build_inputs, snakemake, stand_in_model
from targets import load_line, target
from ctxret.store import VectorStore

sys.path.insert(0, str(ROOT / "tests"))
from fakes.llm_servers import anthropic_server, openai_server  # noqa: E402 (the tests' fakes, beside them)

IN_FLIGHT = 4             # llm_workers in profiles/default
BATCH_APIS = ("anthropic-batch", "openai-batch")
# A1: its shard and its records; else its records
RESULTS_FILES_PER_DOC = {"A1": 2, "X1": 1, **{f"A1 by {b}": 1 for b in BATCH_APIS}}
LOOKUP_GROWTH = 2.0      # an index lookup: log(440,000) / log(4,400) = 1.5, plus cache misses
STORE_RUNS, STORE_ROWS, STORE_DIMS = 100, 4400, 384


@dataclass
class Step:
    run: Invocation
    calls: int
    written: dict[str, int]   # files created or rewritten, by place
    in_flight: int | None = None


def mtimes(places: dict[str, Path]) -> dict[str, dict[str, int]]:
    """{place: {file: mtime}}; results/ without its logs/, counted apart."""
    out = {}
    for name, root in places.items():
        files = [p for p in root.rglob("*") if p.is_file()] if root.exists() else []
        if name == "results":
            files = [p for p in files if p.relative_to(root).parts[0] != "logs"]
        out[name] = {str(p): p.stat().st_mtime_ns for p in files}
    return out


def written(before: dict, after: dict) -> dict[str, int]:
    return {name: sum(1 for p, t in files.items() if before.get(name, {}).get(p) != t)
            for name, files in after.items()}


def most_in_flight(results: Path) -> int:
    """The most documents whose first call had started and last call had not ended, at once."""
    events = []
    for path in (results / "ctx" / "A1" / "docs").glob("*.jsonl"):
        recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        events += [(min(r["started"] for r in recs), 1), (max(r["ended"] for r in recs), -1)]
    now = peak = 0
    for _, step in sorted(events, key=lambda e: (e[0], e[1])):
        now += step
        peak = max(peak, now)
    return peak


def measure(scale: int, work: Path, server, openai) -> dict[str, Step]:
    # the preregistration (an input of every A1 job) needs the free variants' runs: embedded by
    # the tiny stand-in model (seconds), not the default e5 (over 20 minutes at 1x on 2 cores)
    models = stand_in_model(work)
    models["tiny"]["variants"] = ["T1", "A1"]
    config, _, _ = build_inputs(scale, work, models=models)
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings["contexts"]["llm"] = {"backend": "anthropic", "model": "claude-opus-5-5", "base_url": server.url}
    config.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
    results, logs = work / "results", work / "logs"
    logs.mkdir()
    places = {"results": results, "logs": results / "logs", "store": work / "store",
              ".snakemake": ROOT / ".snakemake" / "metadata"}

    def step(name: str, *targets: str) -> Step:
        before, calls = mtimes(places), len(server.requests)
        run = snakemake(config, logs / f"{name}.log", *(str(results / t) for t in targets))
        return Step(run, len(server.requests) - calls, written(before, mtimes(places)))

    steps = {"set-up (prep..prereg.)": step("set-up", "chunks.jsonl", "gold.json", "ctx/A1/estimate.json",
                                             "preregistration.json"),
             "A1 contexts + variant": step("a1", "var-A1.jsonl")}
    steps["A1 contexts + variant"].in_flight = most_in_flight(results)
    steps["X1 contexts + variant"] = step("x1", "var-X1.jsonl")
    steps["no-op rerun (A1, X1)"] = step("no-op", "var-A1.jsonl", "var-X1.jsonl")
    if "Nothing to be done" not in steps["no-op rerun (A1, X1)"].run.output:
        sys.exit(f"the rerun was not a no-op; log {logs / 'no-op.log'}")
    shutil.rmtree(results)
    steps["results/ deleted, rerun"] = step("deleted", "var-A1.jsonl", "var-X1.jsonl")
    # A1 again by each batch API, into a store of its own so that it pays: one job for every
    # document; then its rerun with A1's files deleted (0 requests)
    settings["contexts"]["batch"] = {"poll_s": 0.5, "poll_max_s": 2, "progress_s": 5}
    for backend, fake, llm in (
            ("anthropic-batch", server, {"model": "claude-opus-5-5", "base_url": server.url}),
            ("openai-batch", openai, {"model": "gpt-4.1-mini", "base_url": f"{openai.url}/v1"})):
        settings["contexts"]["llm"] = {"backend": backend, **llm}
        places["store"] = work / f"store-{backend}"
        settings["store"] = str(places["store"])
        config.write_text(yaml.safe_dump(settings, allow_unicode=True), encoding="utf-8")
        for label, name in ((f"{backend} + variant", backend), (f"{backend}, A1 deleted", f"{backend}-again")):
            shutil.rmtree(results / "ctx" / "A1" / "docs")
            (results / "var-A1.jsonl").unlink()
            requests = batch_requests(fake)
            steps[label] = step(name, "var-A1.jsonl")
            steps[label].calls = batch_requests(fake) - requests   # requests submitted in batches
    return steps


def batch_requests(server) -> int:
    return sum(len(b["requests"]) for b in server.batches.values())


def store_lookup(root: Path, runs: int) -> float:
    """Seconds to look up the first run's vectors in a store holding `runs` runs' (best of 3)."""
    store = VectorStore(root, "emb", f"bench-{runs}")
    rng = np.random.default_rng(runs)
    keys = [[hashlib.sha256(f"{r}-{i}".encode()).hexdigest() for i in range(STORE_ROWS)] for r in range(runs)]
    for run_keys in keys:
        for i in range(0, STORE_ROWS, 200):   # the embedding stage's default flush_every
            store.save(run_keys[i:i + 200], rng.random((len(run_keys[i:i + 200]), STORE_DIMS), np.float32))
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        found = store.load(keys[0])
        best = min(best, time.perf_counter() - start)
    assert len(found) == STORE_ROWS
    return best


def print_scale(scale: int, steps: dict[str, Step]) -> None:
    print(f"\n{scale}x: {88 * scale:,} documents, {4400 * scale:,} chunks; {load_line()}")
    print(f"  {'step':<24} {'time s':>8} {'calls':>7} {'peak MB':>8}   files written: "
          f"{'results':>7} {'logs':>6} {'store':>7} {'.snakemake':>10}")
    for name, s in steps.items():
        w = s.written
        print(f"  {name:<24} {s.run.seconds:>8.1f} {s.calls:>7,} {s.run.peak_mb:>8.0f}   {'':>14} "
              f"{w['results']:>7,} {w['logs']:>6,} {w['store']:>7,} {w['.snakemake']:>10,}")
    a1 = steps["A1 contexts + variant"]
    print(f"  A1: at most {a1.in_flight} documents in flight at once (--cores 2)")
    docs = 88 * scale
    # A1 by a batch API: its rerun's files (its first run also rewrites chunks.jsonl and what follows
    # from it: the chunks rule's params name the store, which it switches)
    for variant, label in (("A1", "A1 contexts + variant"), ("X1", "X1 contexts + variant"),
                           *((f"A1 by {b}", f"{b}, A1 deleted") for b in BATCH_APIS)):
        files = steps[label].written["results"] - 1  # the variant file
        limit = RESULTS_FILES_PER_DOC[variant]
        target(f"{variant} contexts {scale}x: files in results/ per document", f"{files / docs:.2f}", f"<= {limit}",
               files <= limit * docs)
    for b in BATCH_APIS:
        batch = [steps[k].calls for k in (f"{b} + variant", f"{b}, A1 deleted")]
        target(f"A1 by {b} {scale}x: requests submitted, then on the rerun", str(batch),
               f"[{steps['A1 contexts + variant'].calls:,}, 0]", batch == [steps["A1 contexts + variant"].calls, 0])
    calls = [steps[k].calls for k in ("no-op rerun (A1, X1)", "results/ deleted, rerun")]
    target(f"A1 contexts {scale}x: calls on a no-op rerun, after deleting results/", str(calls), "[0, 0]",
           calls == [0, 0])
    if scale == 1:
        target("A1 contexts 1x: documents in flight (--cores 2)", str(a1.in_flight), f"= {IN_FLIGHT}",
               a1.in_flight == IN_FLIGHT)


def print_ratios(small: tuple[int, dict], big: tuple[int, dict]) -> None:
    factor = big[0] / small[0]
    limit = GROWTH_PER_SCALE * factor
    for name, s in big[1].items():
        ratio = s.run.seconds / small[1][name].run.seconds
        print(f"  {name:<24} {ratio:>7.1f}x time {s.run.peak_mb / small[1][name].run.peak_mb:>7.1f}x peak MB")
        target(f"contexts {name} {big[0]}x / {small[0]}x: time", f"{ratio:.1f}x", f"<= {limit:g}x", ratio <= limit)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--workdir", type=Path, help="where to build (default: a new temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep the corpora, results, stores and logs")
    args = ap.parse_args()
    root = args.workdir or Path(tempfile.mkdtemp(prefix="bench-contexts-"))
    os.environ["ANTHROPIC_API_KEY"] = "sk-bench"   # the fake servers want one; nothing leaves the machine
    os.environ["OPENAI_API_KEY"] = "sk-bench"
    print(f"{os.cpu_count()} cores, {load_line()}; work directory {root}")
    measured = []
    with anthropic_server() as server, openai_server() as openai:
        for scale in sorted(args.scales):
            work = root / f"x{scale}"
            if work.exists():
                sys.exit(f"{work} exists: remove it or choose another --workdir")
            work.mkdir(parents=True)
            measured.append((scale, measure(scale, work, server, openai)))
            print_scale(*measured[-1])
    for big in measured[1:]:
        print_ratios(measured[0], big)

    one, many = store_lookup(root / "store-bench", 1), store_lookup(root / "store-bench", STORE_RUNS)
    print(f"\nstore lookup of one run's {STORE_ROWS:,} vectors ({STORE_DIMS} floats): "
          f"{one * 1000:.0f} ms among 1 run's entries, {many * 1000:.0f} ms among {STORE_RUNS} runs'")
    target(f"store lookup: {STORE_RUNS} runs' entries / one run's", f"{many / one:.2f}x", f"<= {LOOKUP_GROWTH}x",
           many <= LOOKUP_GROWTH * one)
    if args.keep:
        print(f"\nkept {root}")
    else:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
