"""Index + search + fusion time at the reference's size, model inference excluded.

Synthetic corpus: 4,400 chunks x 3 variants, 100 questions; random unit vectors stand in for
bge-m3 (1024) and e5 (384). Runs the project's own code: BM25 weights, an embedded Qdrant
collection per variant (two dense vectors + sparse bm25, built in scratch space and moved into
place), exact dense top 20 from Qdrant, BM25 top 20 from the weight matrix, RRF.
Kiwi's morphological analysis is a neural model: it is timed apart (the index rule caches its
token lists in the store, so it runs once per text, ever). Target: <= 60 s on 2 cores.

    .venv/bin/python benchmarks/bench_search.py [--chunks 4400] [--questions 100]
"""
from __future__ import annotations

import argparse
import os
import random
import tempfile
import time

import numpy as np

from ctxret.bm25 import KiwiTokenizer, build_index, doc_vectors, query_vector, top_k
from ctxret.fusion import rrf
from ctxret.index import build_embedded
from ctxret.qdrant import open_client
from ctxret.search import _fetcher, exact_top_k

POS = ["NNG", "NNP", "NNB", "NR", "NP", "VV", "VA", "XR", "SL", "SH", "SN", "MAG"]
WORDS = ("컨슈머 브로커 파티션 오프셋 커밋 리밸런싱 하트비트 세션 타임아웃 재시도 큐 메시지 "
         "인덱스 플래너 캐시 만료 축출 메모리 복제 지연 추적 로그 알림 규칙 프로브 서킷 "
         "설정 값 장애 요청 응답 처리 스레드 연결 풀 트랜잭션 잠금").split()
IDENTS = ["max.poll.interval.ms", "session.timeout.ms", "Idempotency-Key", "ERR_CONNECTION_RESET",
          "allkeys-lru", "x-dead-letter-exchange", "group_wait", "order-1003"]
ENDINGS = ["를 설정한다.", "가 늘어난다.", "은 중요하다.", "에서 문제가 생긴다.", "로 해결한다."]


def sentence(rng: random.Random) -> str:
    words = rng.sample(WORDS, 4) + ([rng.choice(IDENTS)] if rng.random() < 0.3 else [])
    return " ".join(words) + rng.choice(ENDINGS)


def corpus(n: int, rng: random.Random) -> list[str]:
    return [" ".join(sentence(rng) for _ in range(rng.randint(12, 20))) for _ in range(n)]


def unit(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    v = rng.standard_normal((n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=4400)
    ap.add_argument("--questions", type=int, default=100)
    args = ap.parse_args()
    rng, nrng = random.Random(42), np.random.default_rng(42)
    questions = [sentence(rng) for _ in range(args.questions)]
    qvec = {"m3": unit(args.questions, 1024, nrng), "e5": unit(args.questions, 384, nrng)}
    tokenizer = KiwiTokenizer(POS, lowercase=True, threads=os.cpu_count() or 1)
    q_tokens = tokenizer.many(questions)
    times = {"bm25 index": 0.0, "qdrant upsert": 0.0, "dense search": 0.0,
             "bm25 search": 0.0, "fusion": 0.0}
    kiwi = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for variant in ("T0", "T1", "A1"):
            texts = corpus(args.chunks, rng)
            rows = [{"chunk_id": f"{i:05d}", "slug": f"doc-{i // 50}"} for i in range(args.chunks)]
            ids = [r["chunk_id"] for r in rows]
            dense = {"m3": unit(args.chunks, 1024, nrng), "e5": unit(args.chunks, 384, nrng)}
            t = time.perf_counter()
            tokens = tokenizer.many(texts)
            kiwi += time.perf_counter() - t
            t = time.perf_counter()
            _, vocab, matrix = build_index(tokens, 1.5, 0.75)
            sparse = doc_vectors(matrix)
            times["bm25 index"] += time.perf_counter() - t
            t = time.perf_counter()
            build_embedded(f"{tmp}/v_{variant}", f"v_{variant}", variant, rows, dense, sparse)
            times["qdrant upsert"] += time.perf_counter() - t
            with open_client(path=f"{tmp}/v_{variant}") as client:
                t = time.perf_counter()
                runs = {m: [exact_top_k(_fetcher(client, f"v_{variant}", m, v.tolist(), False), 20)
                            for v in qvec[m]] for m in dense}
                times["dense search"] += time.perf_counter() - t
            t = time.perf_counter()
            csc = matrix.tocsc()
            bm25 = [top_k(csc, *query_vector(qt, vocab), ids, 20) for qt in q_tokens]
            times["bm25 search"] += time.perf_counter() - t
            t = time.perf_counter()
            for m in dense:
                for d, b in zip(runs[m], bm25):
                    rrf([[c for c, _ in d], [c for c, _ in b]], k=2, rank_base=0, weights=[1, 1], depth=20)
            times["fusion"] += time.perf_counter() - t
    print(f"{args.chunks} chunks x 3 variants, {args.questions} questions, dense m3 1024 + e5 384, BM25")
    for name, seconds in times.items():
        print(f"  {name:<14} {seconds:7.1f} s")
    print(f"  {'total':<14} {sum(times.values()):7.1f} s (target <= 60 s)")
    print(f"  Kiwi analysis of {3 * args.chunks} texts (model inference, first run only): {kiwi:.1f} s")


if __name__ == "__main__":
    main()
