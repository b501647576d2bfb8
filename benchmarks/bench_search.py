"""Index + search + fusion at the reference's size through the workflow itself, and Kiwi's rate.

    .venv/bin/python benchmarks/bench_search.py [--workdir DIR] [--keep]

The synthetic corpus of bench_scale.py at 1x (88 documents, 4,400 chunks, 100 questions), three
variants (T0, T1, X1) and two dense models, like the reference: `e5` (384 dims) and `m3` (1024).
Snakemake runs prep, chunks, questions and variants for real (X1 counts tokens with the slots'
tokenizers: each slot is a tiny random XLM-R, tests/tiny_model.py); the embeddings stand in
(random unit vectors written as the embed rules' outputs, then `snakemake --touch`). Then, timed, each
through Snakemake by its target files: the index rule twice (first with Kiwi analysing every
text, then again with Kiwi's token lists read from the store: the difference is Kiwi's time),
the dense and BM25 searches, and fusion with the cut of every run to `search.top_k`.

Targets: index + search + fusion <= 60 s on 2 cores; Kiwi analyses the reference's 13,200
texts in <= 60 s (>= 220 texts/s).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
from bench_scale import ROOT, build_inputs, planned_jobs, snakemake
from targets import load_line, target

from ctxret.embedding.vectors import TextsDigest, sidecar
from ctxret.fileio import read_jsonl, write_json, write_npy

sys.path.insert(0, str(ROOT / "tests"))
from tiny_model import build_tiny_xlmr  # noqa: E402 (the tests' tiny model, beside them)

DIMS = {"e5": 384, "m3": 1024}
LIMIT_S = 60.0
KIWI_TEXTS_PER_S = 13200 / 60


def stand_in_embeddings(jobs, rng: np.random.Generator) -> int:
    """Random unit vectors as the planned embed jobs' outputs (+ their sidecars): files written."""
    written = 0
    for job in jobs:
        if job.rule == "embed_shard":   # what it embedded into the store: nothing
            write_json(job.output[0], {"stand_in": True, "computed": 0})
            continue
        if job.rule not in ("embed_chunks", "embed_questions"):
            continue
        npy = next(f for f in job.output if f.endswith(".npy"))
        model = Path(npy).stem.rsplit("-", 1)[1]
        rows = read_jsonl(job.input[0])
        ids = [r.get("chunk_id") or r.get("id") for r in rows]
        texts = [r.get("text") or r.get("question") for r in rows]
        vectors = rng.standard_normal((len(rows), DIMS[model])).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        write_npy(npy, vectors)
        write_json(npy[:-4] + ".json", sidecar({"model": f"stand-in-{model}", "backend": "stand-in"},
                                               {"stand_in": True}, ids, TextsDigest(texts).hexdigest(),
                                               vectors.shape[1]))
        written += 1
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--workdir", type=Path, help="where to build (default: a new temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep the corpus, config, results and logs")
    args = ap.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="bench-search-"))
    models = {}
    for m in DIMS:  # a tiny random XLM-R per slot: X1's token counts load its tokenizer; no vector comes from it
        models[m] = {"backend": "sentence-transformers", "model": str(build_tiny_xlmr(work / "stand-in" / m)),
                     "variants": ["T0", "T1", "X1"], "query_prefix": "", "passage_prefix": ""}
    config, _, _ = build_inputs(1, work, models=models)
    results, logs = work / "results", work / "logs"
    logs.mkdir()

    def run(name: str, *args: str):
        return snakemake(config, logs / f"{name}.log", *args)

    print(f"{load_line()}; work directory {work}")
    variants = [str(results / f"var-{v}.jsonl") for v in ("T0", "T1", "X1")]
    run("variants", *variants, str(results / "questions.jsonl"))
    texts = sum(len(read_jsonl(v)) for v in variants)
    indexes = [str(results / "index" / f"v_{v}.json") for v in ("T0", "T1", "X1")]
    deep = [str(results / "runs" / "deep" / f"{r}-{v}.jsonl") for r in ("e5", "m3", "bm25") for v in ("T0", "T1", "X1")]
    plan = planned_jobs(run("plan", "-n", *deep).output)
    plan = [job for job in plan if job.rule.startswith("embed_")]
    stand_in_embeddings(plan, np.random.default_rng(42))
    run("touch", "--touch", *(f for job in plan for f in job.output))
    with_kiwi = run("index-kiwi", *indexes)
    shutil.rmtree(results / "index")
    shutil.rmtree(results / "qdrant")
    steps = {"index (Kiwi from the store)": run("index", *indexes)}
    steps["dense + BM25 search"] = run("search", *deep)
    scored = [str(results / "runs" / f"{r}-{v}.jsonl") for r in ("e5", "m3", "bm25", "he5", "hm3")
              for v in ("T0", "T1", "X1")]
    steps["fusion + cut to top_k"] = run("fuse", *scored)
    kiwi = with_kiwi.seconds - steps["index (Kiwi from the store)"].seconds
    print(f"\n1x: {texts:,} chunk texts (T0, T1, X1), 100 questions, dense e5 384 + m3 1024, BM25; {load_line()}")
    print(f"  {'step':<30} {'jobs':>5} {'time s':>8} {'peak MB':>8}")
    for label, s in {"index (Kiwi analysing)": with_kiwi, **steps}.items():
        print(f"  {label:<30} {s.jobs:>5} {s.seconds:>8.1f} {s.peak_mb:>8.0f}")
    total = sum(s.seconds for s in steps.values())
    print(f"  {'index + search + fusion':<30} {sum(s.jobs for s in steps.values()):>5} {total:>8.1f}")
    print(f"  Kiwi: {texts:,} texts in {kiwi:.1f} s (index with Kiwi analysing minus index from the store)")
    target("index + search + fusion, 1x (4,400 chunks x 3 variants, 100 questions)", f"{total:.1f} s",
           f"<= {LIMIT_S:g} s", total <= LIMIT_S)
    target("Kiwi tokenising (index rule, 2 threads)", f"{texts / kiwi:.0f} texts/s",
           f">= {KIWI_TEXTS_PER_S:.0f} texts/s", texts / kiwi >= KIWI_TEXTS_PER_S)
    if args.keep:
        print(f"kept {work}")
    elif not args.workdir:
        shutil.rmtree(work)


if __name__ == "__main__":
    sys.exit(main())
