"""embed: a variant's chunk texts, or the questions, as vectors (ctxret.vectors).

Row i of `<variant>-<model>.npy` is chunk i of the variant file; the `.json` sidecar names the
model, the ids and the texts' sha256.
"""
from __future__ import annotations

import numpy as np

from .fileio import read_jsonl, write_json, write_npy
from .models import Kind
from .vectors import embed_texts, sidecar


def _embed(output, params, threads: int, kind: Kind, ids: list[str],
           texts: list[str]) -> tuple[np.ndarray, int, str]:
    matrix, computed, ident = embed_texts(texts, kind, dict(params.model), params.store, threads,
                                          int(params.flush_every), bool(params.offline))
    write_npy(output.npy, matrix)
    write_json(output.meta, sidecar(params.model, ident, ids, texts, matrix))
    return matrix, computed, ident.get("precision", "fp32")


def run_chunks(input, output, params, threads=1, **_) -> None:
    rows = read_jsonl(input.variant)
    matrix, computed, precision = _embed(output, params, threads, "passage", [r["chunk_id"] for r in rows],
                                         [r["text"] for r in rows])
    print(f"{params.variant} {params.model_name}: chunks {len(rows)}, computed {computed}, "
          f"from store {len({r['text'] for r in rows}) - computed}, dims {matrix.shape[1]}, {precision}")


def run_questions(input, output, params, threads=1, **_) -> None:
    questions = read_jsonl(input.questions)
    matrix, computed, precision = _embed(output, params, threads, "query", [q["id"] for q in questions],
                                         [q["question"] for q in questions])
    print(f"questions {params.model_name}: {len(questions)}, computed {computed}, "
          f"from store {len({q['question'] for q in questions}) - computed}, dims {matrix.shape[1]}, {precision}")
