"""Reranking: a cross-encoder re-scores the top N, scores are paid once, offline errors are clear."""
import numpy as np
import pytest
from tiny_reranker import build_tiny_reranker

from ctxret.errors import InputError
from ctxret.stages.rerank import pair_scores, reranked

PAIRS = [("카프카 컨슈머 지연", "카프카 컨슈머의 지연이 커지면 처리 속도가 떨어진다."),
         ("카프카 컨슈머 지연", "레디스 캐시의 메모리가 부족하면 오류 로그가 쌓인다."),
         ("레디스 캐시 설정", "`maxmemory-policy` 설정은 레디스 캐시에서 중요하다.")]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return str(build_tiny_reranker(tmp_path_factory.mktemp("reranker")))


def settings(model, backend="flagembedding"):
    return {"backend": backend, "model": model, "revision": "", "max_length": 128, "batch_size": 4}


def test_rerank_keeps_the_top_k_of_the_top_n():
    run = {"q1": ["c1", "c2", "c3", "c4"], "q2": ["c9", "c8"]}
    questions = {"q1": "가", "q2": "나"}
    texts = {c: c for c in ("c1", "c2", "c3", "c4", "c8", "c9")}
    score = {"c1": 0.1, "c2": 0.9, "c3": 0.9, "c4": 5.0, "c8": 0.3, "c9": 0.2}
    out = reranked(run, questions, texts, lambda pairs: [score[p] for _, p in pairs], top_n=3, k=2)
    assert out["q1"] == [("c2", 0.9), ("c3", 0.9)]      # c4 was beyond the top 3; tie by chunk id
    assert [c for c, _ in out["q2"]] == ["c8", "c9"]


@pytest.mark.parametrize("backend", ["flagembedding", "cross-encoder"])
def test_scores_come_from_the_model_and_are_paid_once(tiny, tmp_path, backend):
    s = settings(tiny, backend)
    first, computed = pair_scores(PAIRS, s, str(tmp_path), threads=1, offline=True)
    if backend == "flagembedding":
        from FlagEmbedding import FlagReranker
        direct = FlagReranker(tiny, use_fp16=False, devices="cpu").compute_score([list(p) for p in PAIRS])
    else:
        from sentence_transformers import CrossEncoder
        direct = CrossEncoder(tiny, device="cpu").predict([list(p) for p in PAIRS])
    np.testing.assert_allclose(first, direct, rtol=1e-4, atol=1e-5)
    assert computed == len(PAIRS)
    again, computed = pair_scores(PAIRS + PAIRS[:1], s, str(tmp_path), threads=1, offline=True)
    assert computed == 0
    np.testing.assert_allclose(again[:3], first)


def test_a_reranker_that_is_not_on_disk_fails_with_how_to_provide_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(InputError, match="BAAI/bge-reranker-v2-m3.*Provide the weights"):
        pair_scores(PAIRS, settings("BAAI/bge-reranker-v2-m3"), str(tmp_path), threads=1, offline=True)
