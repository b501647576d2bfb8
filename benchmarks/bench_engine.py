"""The Qdrant engine in-process (qdrant-edge) at 100x the reference: exact dense search and HNSW.

    .venv/bin/python benchmarks/bench_engine.py [--points 440000] [--hnsw-points 100000]
        [--ef 64 128 256] [--ef-construct 200]

Points are 384-dim unit vectors (e5-small's size) drawn around 2,000 random centres, as
embeddings of a corpus cluster by topic; questions are 100 further points from the same mixture.
Built through ctxret.stages.index.fill (the index step's code), searched through
ctxret.stages.search.top_k_all (the search step's: one batch, then widening on ties), on the engine's
search threads (2 on this machine), exact then HNSW.

Targets: exact search over 440,000 points <= 100 ms per question (batched); HNSW recall@20
>= 0.99 against exact and >= 10x faster. The HNSW graph's build is the slow part on 2 cores
(about 2 minutes per 50,000 points): `--hnsw-points` sets the size it is measured at. One graph
is searched at every `--ef` given; the targets are read at search.hnsw's default ef.
"""
from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from targets import load_line, target

from ctxret.retrieval.qdrant import Hnsw, open_engine
from ctxret.settings import schema_default
from ctxret.stages.index import build_embedded, fill
from ctxret.stages.search import recall_at_k, top_k_all

DIMS, CENTRES, QUESTIONS, K = 384, 2000, 100, 20
EXACT_MS, RECALL, SPEED_UP = 100.0, 0.99, 10.0
HNSW = Hnsw(**schema_default("search", "hnsw"))   # config/schema.yaml's defaults


def mixture(n: int, rng: np.random.Generator, centres: np.ndarray) -> np.ndarray:
    out = centres[rng.integers(0, len(centres), n)] + 0.35 * rng.standard_normal((n, DIMS)).astype(np.float32) / np.sqrt(DIMS)
    return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def chunk_ids(n: int) -> list[str]:
    return [f"c{i:07d}" for i in range(n)]


def build(path: Path, vectors: np.ndarray, hnsw: Hnsw | None) -> float:
    rows = [{"chunk_id": c, "slug": f"d{i // 50}"} for i, c in enumerate(chunk_ids(len(vectors)))]
    empty = sp.csr_matrix((len(vectors), 1), dtype=np.float32)
    start = time.perf_counter()
    build_embedded(str(path), "bench", lambda engine: fill(engine, rows, {"e5": vectors}, empty, hnsw))
    return time.perf_counter() - start


def timed_search(path: Path, points: int, queries: list, exact: bool, ef: int = HNSW.ef) -> tuple[list, float]:
    with open_engine(path=str(path), chunk_ids=chunk_ids(points)) as engine:   # as the search step opens it
        top_k_all(engine, "e5", queries[:5], K, exact=exact, ef=ef)      # warm the page cache
        start = time.perf_counter()
        ranked = top_k_all(engine, "e5", queries, K, exact=exact, ef=ef)
        return ranked, (time.perf_counter() - start) / len(queries) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--points", type=int, default=440_000)
    ap.add_argument("--hnsw-points", type=int, default=100_000)
    ap.add_argument("--ef", type=int, nargs="+", default=[HNSW.ef], help="search.hnsw.ef values to search at")
    ap.add_argument("--ef-construct", type=int, default=HNSW.ef_construct)
    args = ap.parse_args()
    graph = Hnsw(HNSW.m, args.ef_construct, HNSW.ef)
    rng = np.random.default_rng(7)
    centres = rng.standard_normal((CENTRES, DIMS)).astype(np.float32) / np.sqrt(DIMS)
    vectors = mixture(args.points, rng, centres)
    queries = list(mixture(QUESTIONS, rng, centres))
    work = Path(tempfile.mkdtemp(prefix="bench-engine-"))
    try:
        print(f"{load_line()}; {args.points:,} points x {DIMS} dims, {QUESTIONS} questions, top {K}")
        seconds = build(work / "exact", vectors, None)
        print(f"  exact collection: built in {seconds:.1f} s ({args.points / seconds:,.0f} points/s)")
        exact, exact_ms = timed_search(work / "exact", args.points, queries, exact=True)
        print(f"  exact search: {exact_ms:.1f} ms per question (batched)")
        target(f"exact dense search over {args.points:,} points (2 threads, batched)", f"{exact_ms:.1f} ms/question",
               f"<= {EXACT_MS:g} ms", exact_ms <= EXACT_MS)
        subset = vectors[:args.hnsw_points]
        if len(subset) < len(vectors):
            shutil.rmtree(work / "exact")
            build(work / "exact", subset, None)
            exact, exact_ms = timed_search(work / "exact", len(subset), queries, exact=True)
        shutil.rmtree(work / "exact")
        seconds = build(work / "hnsw", subset, graph)
        print(f"  HNSW over {len(subset):,} points (m {graph.m}, ef_construct {graph.ef_construct}): "
              f"built in {seconds:.1f} s")
        for ef in args.ef:
            approx, hnsw_ms = timed_search(work / "hnsw", len(subset), queries, exact=False, ef=ef)
            recall = recall_at_k(approx, exact)
            print(f"  {len(subset):,} points, ef {ef}: exact {exact_ms:.2f} ms, HNSW {hnsw_ms:.2f} ms per question "
                  f"({exact_ms / hnsw_ms:.1f}x), recall@{K} {recall:.4f}")
            if ef == HNSW.ef and graph == HNSW:
                target(f"HNSW recall@{K} against exact ({len(subset):,} points)", f"{recall:.4f}", f">= {RECALL}",
                       recall >= RECALL)
                target(f"HNSW speed-up over exact ({len(subset):,} points)", f"{exact_ms / hnsw_ms:.1f}x",
                       f">= {SPEED_UP:g}x", exact_ms / hnsw_ms >= SPEED_UP)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
