"""rerank: a cross-encoder re-scores the top N of a run and keeps the top k (run `r-<base>`).

Backends: FlagEmbedding's FlagReranker (default BAAI/bge-reranker-v2-m3) or a
sentence-transformers CrossEncoder. Scores go through the content-addressed store under the
sha256 of model, revision, maximum length, question and passage, so each pair is scored once.
"""
import numpy as np

from ctxret.embedding.models import load_weights, model_dir, set_offline
from ctxret.fileio import read_jsonl
from ctxret.retrieval.runs import chunk_names, read_run, write_run
from ctxret.runtime.stage_runner import run_rule
from ctxret.store import VectorStore, content_key, namespace_of


class Reranker:
    def __init__(self, settings: dict, threads: int, offline: bool):
        name, length, batch = settings["model"], int(settings["max_length"]), int(settings["batch_size"])
        where = model_dir(settings, offline)
        set_offline(offline)
        import torch
        torch.set_num_threads(max(1, threads))
        if settings["backend"] == "flagembedding":
            from FlagEmbedding import FlagReranker
            model = load_weights(name, where, lambda w: FlagReranker(w, use_fp16=False, devices="cpu",
                                                              max_length=length))
            self.score = lambda pairs: model.compute_score(pairs, batch_size=batch, max_length=length)
        else:
            from sentence_transformers import CrossEncoder
            model = load_weights(name, where, lambda w: CrossEncoder(
                w, revision=settings.get("revision") or None, device="cpu", max_length=length))
            self.score = lambda pairs: model.predict(pairs, batch_size=batch, show_progress_bar=False)


def identity(settings: dict) -> dict:
    return {k: settings.get(k) for k in ("backend", "model", "revision", "max_length")}


def pair_scores(pairs: list[tuple[str, str]], settings: dict, store_root: str, threads: int,
                offline: bool) -> tuple[np.ndarray, int]:
    """Scores of (question, passage) pairs, computing only those not in the store."""
    ident = identity(settings)
    store = VectorStore(store_root, "rerank", namespace_of(ident))
    keys = [content_key(model=ident, query=q, passage=p) for q, p in pairs]
    found = store.load(keys)
    todo = {k: pair for k, pair in zip(keys, pairs) if k not in found}
    if todo:
        scores = np.asarray(Reranker(settings, threads, offline).score([list(p) for p in todo.values()]),
                            dtype=np.float32).reshape(-1, 1)
        store.save(list(todo), scores)
        found.update(zip(todo, scores))
    return np.array([float(found[k][0]) for k in keys]), len(todo)


def reranked(run: dict[str, list[str]], questions: dict[str, str], texts: dict[str, str],
           scores_of, top_n: int, k: int) -> dict[str, list[tuple[str, float]]]:
    """The top k of each question's first `top_n` by the cross-encoder (ties by chunk id)."""
    pairs = [(qid, cid) for qid, ids in run.items() for cid in ids[:top_n]]
    scores = scores_of([(questions[q], texts[c]) for q, c in pairs])
    by_q: dict[str, list[tuple[str, float]]] = {q: [] for q in run}
    for (qid, cid), s in zip(pairs, scores):
        by_q[qid].append((cid, float(s)))
    return {q: sorted(r, key=lambda cs: (-cs[1], cs[0]))[:k] for q, r in by_q.items()}


def rerank(input, output, params, threads=1, **_) -> None:
    settings = dict(params.rerank)
    questions = {q["id"]: q["question"] for q in read_jsonl(input.questions)}
    texts = {r["chunk_id"]: r["text"] for r in read_jsonl(input.variant)}
    computed = []

    def scores_of(pairs):
        s, n = pair_scores(pairs, settings, params.store, threads, bool(params.offline))
        computed.append(n)
        return s

    results = reranked(read_run(input.run), questions, texts, scores_of, int(settings["top_n"]), int(params.top_k))
    write_run(output.run, output.trec, params.name, results, chunk_names(read_jsonl(input.chunks)))
    print(f"{params.name}: {settings['model']} re-scored the top {settings['top_n']} of "
          f"{len(results)} questions, pairs computed {sum(computed)}")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
