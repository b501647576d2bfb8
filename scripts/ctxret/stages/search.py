"""search: top-k per question in the variant's Qdrant collection; search_fuse: hybrid runs; search_cut: the scored runs, each the first
`search.top_k` of its deep run (the one fusion and reranking read), scores and order kept, the TREC
run naming chunks as chunks.jsonl does.

Dense and BM25 runs are both searched in the engine, exact unless the index built an HNSW graph
(`search.exact: false`; the log then reports its recall@k against exact search on a sample).
Ties are broken by (score desc, chunk id); the engine is asked for more than k until the k-th
score is strictly above the last one fetched, so no tie is cut arbitrarily.

The decider is float64: the engine scores in float32, which can merge or split near-ties and so
move a rank, so its hits are candidates, rescored in float64 (dense: the stored vectors, as
qdrant-client's local mode scored them; BM25: the weight matrix the index stored, the scores
bm25s gives), and the engine is asked for more until no chunk it did not return can
reach the k-th rescored score. The runs' ranks and scores are those of the float64 scores.
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ctxret.fileio import read_json, read_jsonl
from ctxret.retrieval.bm25 import query_vector, tokenizer_from
from ctxret.retrieval.fusion import FusionPreset, rrf
from ctxret.retrieval.qdrant import Hit, open_engine
from ctxret.retrieval.runs import chunk_names, read_run, write_run
from ctxret.runtime.stage_runner import run_rule


@dataclass
class Rescorer:
    """`for_query(q)` -> (chunk ids -> float64 scores); `reach(s)`: the most a chunk the engine
    scored `s` or less (float32) can score in float64."""
    for_query: Callable
    reach: Callable[[float], float]


def exact_top_k(fetch, k: int) -> list[tuple[str, float]]:
    """`fetch(limit)` -> the engine's best `limit` [(chunk_id, score)]; the top k by (score desc,
    chunk id). The fetch reaches one past k and doubles until the k-th score is strictly above
    the last one fetched (or the collection is exhausted), so a tie at rank k is decided by chunk
    id among every tied chunk, never by the engine's order."""
    limit = k + 1
    while True:
        got = fetch(limit)
        ranked = sorted(got, key=lambda cs: (-cs[1], cs[0]))
        if len(got) < limit or ranked[k - 1][1] > ranked[-1][1]:
            return ranked[:k]
        limit *= 2


def top_k_all(engine, using: str, queries: list, k: int, exact: bool = True, ef: int | None = None,
              rescore: Rescorer | None = None) -> list[list[Hit]]:
    """`exact_top_k` of every query: the first 2k hits of all of them fetched in one batch, more
    one query at a time when a tie or `rescore` asks for them."""
    first_limit = 2 * k
    first = engine.search(using, queries, first_limit, exact, ef) if queries else []
    out = []
    for q, hits in zip(queries, first):
        def fetch(limit: int, q=q, hits=hits) -> list[Hit]:
            return hits[:limit] if limit <= first_limit else engine.search(using, [q], limit, exact, ef)[0]
        out.append(exact_top_k(fetch if rescore is None else rescored(fetch, rescore.for_query(q), rescore.reach), k))
    return out


def rescored(fetch, score, reach):
    """`fetch` with its hits rescored by `score` (chunk ids -> exact scores): the exact top
    `limit`, fetching more until no chunk outside the hits can `reach` it."""
    def exact_fetch(limit: int) -> list[Hit]:
        n = limit
        while True:
            hits = fetch(n)
            exact = sorted(zip([c for c, _ in hits], score([c for c, _ in hits])), key=lambda cs: (-cs[1], cs[0]))
            if len(hits) < n or exact[limit - 1][1] > reach(hits[-1][1]):
                return exact[:limit]
            n *= 2
    return exact_fetch


def bm25_scorer(matrix, chunk_ids: list[str]) -> Rescorer:
    """BM25 from the stored weight matrix (CSR, sorted indices), summed term by term in id order
    in float64 (bm25s's scores; tests/test_bm25.py checks them against a matrix product). A
    float32 sum of a query's few positive terms is within 1e-5 of it, relatively."""
    row = {c: i for i, c in enumerate(chunk_ids)}

    def for_query(query):
        weight = dict(zip(*query))

        def score(cids: list[str]) -> list[float]:
            out = []
            for c in cids:
                lo, hi = matrix.indptr[row[c]], matrix.indptr[row[c] + 1]
                total = 0.0
                for term, w in zip(matrix.indices[lo:hi].tolist(), matrix.data[lo:hi].tolist()):
                    if term in weight:
                        total += w * weight[term]
                out.append(total)
            return out
        return score
    return Rescorer(for_query, lambda s: s * (1 + 1e-5))


def dense_scorer(vectors: np.ndarray, chunk_ids: list[str], cosine: bool) -> Rescorer:
    """Dot products (cosine: of the normalised vectors) in float64 of the stored float32 vectors
    (memory-mapped; only the hits' rows are read). A float32 dot product of unit vectors is within
    1e-4 of it (1,024 dimensions at most 6e-5)."""
    row = {c: i for i, c in enumerate(chunk_ids)}

    def unit(m: np.ndarray) -> np.ndarray:
        return m / np.linalg.norm(m, axis=-1, keepdims=True) if cosine else m

    def for_query(q):
        q64 = unit(np.asarray(q, dtype=np.float64))

        def score(cids: list[str]) -> list[float]:
            rows = vectors[[row[c] for c in cids]].astype(np.float64)
            return (unit(rows) @ q64).tolist() if cids else []
        return score
    return Rescorer(for_query, lambda s: s + 1e-4)


def recall_at_k(approx: list[list[Hit]], exact: list[list[Hit]]) -> float:
    found = sum(len({c for c, _ in a} & {c for c, _ in e}) for a, e in zip(approx, exact))
    return found / max(1, sum(len(e) for e in exact))


def search_dense(input, output, params, **_) -> None:
    meta = read_json(input.qmeta)
    vectors = np.load(input.qemb, mmap_mode="r")
    manifest = read_json(input.manifest)
    hnsw, k = manifest.get("hnsw"), int(params.depth)
    queries = [np.asarray(v, dtype=np.float32) for v in vectors]
    chunk_ids = read_json(input.emb_meta)["ids"]
    rescore = dense_scorer(np.load(input.emb, mmap_mode="r"), chunk_ids,
                           manifest["dense"][params.model]["distance"] == "Cosine")
    with open_engine(path=params.qdrant_path, url=params.qdrant_url or None, api_key_env=params.api_key_env,
                     name=manifest["collection"], chunk_ids=chunk_ids) as engine:
        ranked = top_k_all(engine, params.model, queries, k, exact=not hnsw, ef=hnsw and hnsw["ef"], rescore=rescore)
        if hnsw:
            sample = sorted(set(np.linspace(0, len(queries) - 1, min(len(queries), int(params.recall_sample)),
                                            dtype=int).tolist())) if queries else []
            exact = top_k_all(engine, params.model, [queries[i] for i in sample], k, rescore=rescore)
            recall = recall_at_k([ranked[i] for i in sample], exact)
    write_run(output.run, output.trec, params.name, dict(zip(meta["ids"], ranked)))
    how = (f"HNSW (ef {hnsw['ef']}): recall@{k} against exact search {recall:.4f} on {len(sample)} questions"
           if hnsw else "exact")
    print(f"{params.name}: {len(ranked)} questions, top {k}, {how} (engine candidates, float64 rescored)")


def search_bm25(input, output, params, **_) -> None:
    import scipy.sparse as sp
    index = read_json(input.vocab)
    manifest = read_json(input.manifest)
    matrix = sp.load_npz(input.matrix).tocsr()
    matrix.sort_indices()
    tokenizer = tokenizer_from(index["tokenizer"])
    questions = read_jsonl(input.questions)
    # through the store as the index's texts are: every variant's search analyses a question once
    analysed, now, _ = tokenizer.cached_many([q["question"] for q in questions], params.store)
    queries = [query_vector(tokens, index["vocab"]) for tokens in analysed]
    known = [i for i, (ids, _) in enumerate(queries) if ids]
    with open_engine(path=params.qdrant_path, url=params.qdrant_url or None, api_key_env=params.api_key_env,
                     name=manifest["collection"], chunk_ids=index["chunk_ids"]) as engine:
        ranked = top_k_all(engine, "bm25", [queries[i] for i in known], int(params.depth),
                           rescore=bm25_scorer(matrix, index["chunk_ids"]))
    results = {q["id"]: [] for q in questions}
    results.update({questions[i]["id"]: hits for i, hits in zip(known, ranked)})
    empty = [qid for qid, hits in results.items() if not hits]
    write_run(output.run, output.trec, params.name, results)
    print(f"{params.name}: {len(results)} questions (analysed now {now}, the rest from the store), top {params.depth} "
          f"(engine candidates, float64 rescored); queries with an empty result (no known term) {len(empty)} {empty}")


def search_fuse(input, output, params, **_) -> None:
    dense, sparse = read_run(input.dense), read_run(input.bm25)
    f: FusionPreset = params.fusion
    results = {qid: rrf([dense[qid], sparse.get(qid, [])], k=f.k, rank_base=f.rank_base,
                        weights=[f.dense_weight, f.bm25_weight], depth=f.depth)[:int(params.depth)]
               for qid in dense}
    write_run(output.run, output.trec, params.name, results)
    print(f"{params.name}: preset {f.name} (k {f.k:g}, ranks from {f.rank_base}, weights dense {f.dense_weight:g} "
          f"bm25 {f.bm25_weight:g}), the top {f.depth} of each list fused, {len(results)} questions")



def search_cut(input, output, params, **_) -> None:
    k = int(params.top_k)
    names = {path: chunk_names(read_jsonl(path)) for path in dict.fromkeys(input.chunks)}
    for name, deep, chunks, scored, trec in zip(params.names, input.deep, input.chunks, output.runs, output.trecs,
                                                strict=True):
        rows = read_jsonl(deep)
        write_run(scored, trec, name, {r["qid"]: list(zip(r["ids"], r["scores"]))[:k] for r in rows}, names[chunks])
    print(f"{len(output.runs)} runs: the top {k} of each")



if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
