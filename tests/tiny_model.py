"""A tiny random XLM-RoBERTa embedding model, built in seconds, laid out like BAAI/bge-m3.

Both `SentenceTransformer(dir)` and `FlagEmbedding.BGEM3FlagModel(dir)` load the directory:
config.json + model.safetensors, an XLM-R (Unigram) tokenizer trained here on Korean text,
the sentence-transformers modules (CLS pooling, no Normalize module: normalisation is the
slot's `normalize` setting) and BGE-M3's colbert/sparse heads.
"""
from __future__ import annotations

import itertools
import json
from pathlib import Path

HIDDEN = 32
MAX_POSITIONS = 514          # like XLM-R: 512 tokens + the padding offset
SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]     # ids 0..3, as in XLM-R; <mask> comes last

_SUBJECTS = ["카프카 컨슈머", "레디스 캐시", "쿠버네티스 파드", "엘라스틱서치 인덱스", "포스트그레스 복제",
             "주문 서비스", "결제 API", "배치 작업", "로그 수집기", "검색 엔진"]
_EVENTS = ["지연이 커지면", "메모리가 부족하면", "요청이 몰리면", "타임아웃이 나면", "재시작되면",
           "설정을 바꾸면", "버전을 올리면", "네트워크가 끊기면"]
_ACTIONS = ["처리 속도가 떨어진다", "리밸런싱이 일어난다", "데이터베이스로 요청이 몰린다",
            "오류 로그가 쌓인다", "응답 시간이 길어진다", "모니터링 경보가 울린다"]
_SETTINGS = ["max.poll.interval.ms", "max.poll.records", "session.timeout.ms", "maxmemory-policy",
             "replica.lag.time.max.ms", "fetch.min.bytes", "wal_level", "resources.limits.memory"]
_ADVICE = ["값을 낮춘다", "값을 두 배로 늘린다", "기본값을 유지한다", "지터를 더한다", "모니터링한다"]


def korean_lines() -> list[str]:
    """A few hundred deterministic Korean sentences with configuration identifiers."""
    lines = [f"{s}의 {e} {a}." for s, e, a in itertools.product(_SUBJECTS, _EVENTS, _ACTIONS)]
    lines += [f"`{k}` 설정은 {s}에서 중요하다. 처리가 길어지면 {k} {v}."
              for k, s, v in zip(itertools.cycle(_SETTINGS), _SUBJECTS * 4, itertools.cycle(_ADVICE))]
    return lines


def _tokenizer():
    from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import Unigram
    from tokenizers.trainers import UnigramTrainer

    tok = Tokenizer(Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tok.train_from_iterator(korean_lines(), UnigramTrainer(
        vocab_size=400, special_tokens=SPECIALS, unk_token="<unk>", shrinking_factor=0.75,
        show_progress=False))
    tok.add_special_tokens(["<mask>"])
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    return tok


def _write_json(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=1), encoding="utf-8")


def save_tokenizer(out: Path):
    """The XLM-R tokenizer trained here, saved in `out`."""
    from transformers import XLMRobertaTokenizerFast
    tok = XLMRobertaTokenizerFast(
        tokenizer_object=_tokenizer(), bos_token="<s>", eos_token="</s>", sep_token="</s>",
        cls_token="<s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>",
        model_max_length=MAX_POSITIONS - 2)
    tok.save_pretrained(out)
    return tok


def tiny_config(tok, **extra):
    from transformers import XLMRobertaConfig
    return XLMRobertaConfig(
        vocab_size=len(tok), hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=2 * HIDDEN, max_position_embeddings=MAX_POSITIONS, type_vocab_size=1,
        pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
        initializer_range=0.5,      # the default 0.02 gives every text nearly the same vector
        **extra)


def build_tiny_xlmr(directory: str | Path, seed: int = 0) -> Path:
    """Write the tiny model to `directory` (created) and return it."""
    import torch
    from transformers import XLMRobertaModel

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    tok = save_tokenizer(out)
    torch.manual_seed(seed)
    config = tiny_config(tok)
    XLMRobertaModel(config).save_pretrained(out)
    torch.save(torch.nn.Linear(HIDDEN, HIDDEN).state_dict(), out / "colbert_linear.pt")
    torch.save(torch.nn.Linear(HIDDEN, 1).state_dict(), out / "sparse_linear.pt")

    _write_json(out / "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}])
    _write_json(out / "sentence_bert_config.json", {"max_seq_length": MAX_POSITIONS - 2,
                                                    "do_lower_case": False})
    _write_json(out / "1_Pooling" / "config.json", {
        "word_embedding_dimension": HIDDEN, "pooling_mode_cls_token": True,
        "pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False})
    return out
