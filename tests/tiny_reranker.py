"""A tiny random XLM-R cross-encoder (one relevance logit), loadable by FlagReranker and CrossEncoder."""
from __future__ import annotations

from pathlib import Path

from tiny_model import HIDDEN, MAX_POSITIONS, _tokenizer


def build_tiny_reranker(directory: str | Path, seed: int = 0) -> Path:
    import torch
    from transformers import (XLMRobertaConfig, XLMRobertaForSequenceClassification,
                              XLMRobertaTokenizerFast)

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tok = XLMRobertaTokenizerFast(
        tokenizer_object=_tokenizer(), bos_token="<s>", eos_token="</s>", sep_token="</s>",
        cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>",
        model_max_length=MAX_POSITIONS - 2)
    tok.save_pretrained(out)
    torch.manual_seed(seed)
    config = XLMRobertaConfig(
        vocab_size=len(tok), hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=2 * HIDDEN, max_position_embeddings=MAX_POSITIONS, type_vocab_size=1,
        pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
        num_labels=1, initializer_range=0.5)
    XLMRobertaForSequenceClassification(config).save_pretrained(out)
    return out
