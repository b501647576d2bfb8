"""A tiny random XLM-R cross-encoder (one relevance logit), loadable by FlagReranker and CrossEncoder."""
from __future__ import annotations

from pathlib import Path

from tiny_model import save_tokenizer, tiny_config


def build_tiny_reranker(directory: str | Path, seed: int = 0) -> Path:
    import torch
    from transformers import XLMRobertaForSequenceClassification

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tok = save_tokenizer(out)
    torch.manual_seed(seed)
    XLMRobertaForSequenceClassification(tiny_config(tok, num_labels=1)).save_pretrained(out)
    return out
