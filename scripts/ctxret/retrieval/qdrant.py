"""Qdrant: one collection layout and one interface over two engines.

- embedded (the default): Qdrant's own segment engine in-process (qdrant-edge), one shard
  directory per collection; readers share a file lock, the index step swaps a new shard in under
  an exclusive one;
- server (`qdrant.url`): qdrant-client against a Qdrant server (compose.yaml).

Layout: point id = row of the variant file; a named dense vector per model (`Dot` for unit
vectors, `Cosine` otherwise), sparse `bm25` holding each chunk's BM25 term weights (no modifier:
the IDF is in the weights already), payload `chunk_id` and `slug`. Searches are exact unless an
HNSW index was asked for (`search.exact: false`).
"""
from __future__ import annotations

import contextlib
import fcntl
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from ctxret import secrets
from ctxret.errors import InputError
from ctxret.retrieval.shard_records import forget_times, shard_problem

Hit = tuple[str, float]            # (chunk_id, score)
Sparse = tuple[list[int], list[float]]


@dataclass(frozen=True)
class Hnsw:
    m: int
    ef_construct: int
    ef: int


@dataclass
class PointData:
    id: int
    dense: dict[str, np.ndarray]
    sparse: Sparse
    payload: dict


def distance_for(vectors: np.ndarray) -> str:
    """Dot for unit vectors (the same ranking as cosine, without re-normalising), cosine otherwise."""
    norms = np.linalg.norm(vectors[:1000], axis=1)
    return "Dot" if len(norms) and np.allclose(norms, 1.0, atol=1e-3) else "Cosine"


class EdgeEngine:
    """Qdrant's segment engine in-process, on one shard directory."""

    def __init__(self, path: str, chunk_ids: list[str] | None = None):
        self.path, self.chunk_ids = path, chunk_ids
        self.shard = None

    def create(self, dense: dict[str, tuple[int, str]], hnsw: Hnsw | None) -> None:
        from qdrant_edge import (Distance, EdgeConfig, EdgeOptimizersConfig, EdgeShard, EdgeSparseVectorParams,
                                 EdgeVectorParams, HnswIndexConfig)
        graph = (HnswIndexConfig(m=hnsw.m, ef_construct=hnsw.ef_construct, full_scan_threshold=1)
                 if hnsw else None)
        config = EdgeConfig(
            vectors={m: EdgeVectorParams(size=size, distance=getattr(Distance, distance))
                     for m, (size, distance) in dense.items()},
            sparse_vectors={"bm25": EdgeSparseVectorParams()}, hnsw_config=graph, wal_enabled=False,
            # no graph unless asked for: every segment stays a plain (brute-force, exact) one
            optimizers=EdgeOptimizersConfig(indexing_threshold=1 if hnsw else 0))
        self.shard = EdgeShard.create(self.path, config)

    def open(self) -> None:
        from qdrant_edge import EdgeShard
        if not Path(self.path, "edge_config.json").exists():
            raise InputError(f"{self.path}: no Qdrant shard here (run the index step)")
        self.shard = EdgeShard.load(self.path)

    def upsert(self, points: list[PointData]) -> None:
        from qdrant_edge import Point, SparseVector, UpdateOperation
        self.shard.update(UpdateOperation.upsert_points([
            Point(p.id, {**p.dense, "bm25": SparseVector(*p.sparse)}, p.payload) for p in points]))

    def finish(self) -> None:
        self.shard.flush()
        self.shard.optimize()   # builds the HNSW graphs when there are any to build

    def count(self) -> int:
        from qdrant_edge import CountRequest
        return self.shard.count(CountRequest(exact=True))

    def search(self, using: str, queries: list, limit: int, exact: bool, ef: int | None = None) -> list[list[Hit]]:
        from qdrant_edge import Query, QueryBatchRequest, QueryRequest, SearchParams, SparseVector
        params = SearchParams(exact=exact, hnsw_ef=None if exact else ef)
        requests = [QueryRequest(limit=limit, query=Query.Nearest(SparseVector(*q) if using == "bm25" else q,
                                                                  using=using),
                                 with_payload=self.chunk_ids is None, params=params) for q in queries]
        return [hits(points, self.chunk_ids) for points in self.shard.query_batch(QueryBatchRequest(requests))]

    def close(self) -> None:
        if self.shard is not None:
            self.shard.close()
            self.shard = None


class ServerEngine:
    """qdrant-client against a Qdrant server, one collection by name."""

    def __init__(self, client, name: str, chunk_ids: list[str] | None = None):
        self.client, self.name, self.chunk_ids = client, name, chunk_ids

    def create(self, dense: dict[str, tuple[int, str]], hnsw: Hnsw | None) -> None:
        from qdrant_client import models
        if self.client.collection_exists(self.name):
            self.client.delete_collection(self.name)
        graph = models.HnswConfigDiff(m=hnsw.m, ef_construct=hnsw.ef_construct) if hnsw else None
        self.client.create_collection(
            self.name,
            vectors_config={m: models.VectorParams(size=size, distance=models.Distance(distance))
                            for m, (size, distance) in dense.items()},
            sparse_vectors_config={"bm25": models.SparseVectorParams()}, hnsw_config=graph)

    def open(self) -> None:
        if not self.client.collection_exists(self.name):
            raise InputError(f"Qdrant server: no collection {self.name} (run the index step)")

    def upsert(self, points: list[PointData]) -> None:
        from qdrant_client import models
        self.client.upsert(self.name, [
            models.PointStruct(id=p.id, payload=p.payload,
                               vector={**{m: v.tolist() for m, v in p.dense.items()},
                                       "bm25": models.SparseVector(indices=p.sparse[0], values=p.sparse[1])})
            for p in points])

    def finish(self) -> None:
        pass  # the server indexes on its own; exact searches do not wait for it

    def count(self) -> int:
        return self.client.count(self.name, exact=True).count

    def search(self, using: str, queries: list, limit: int, exact: bool, ef: int | None = None) -> list[list[Hit]]:
        from qdrant_client import models
        params = models.SearchParams(exact=exact, hnsw_ef=None if exact else ef)
        requests = [models.QueryRequest(
            query=models.SparseVector(indices=q[0], values=q[1]) if using == "bm25" else np.asarray(q).tolist(),
            using=using, limit=limit, with_payload=self.chunk_ids is None, params=params) for q in queries]
        return [hits(res.points, self.chunk_ids) for res in self.client.query_batch_points(self.name, requests)]

    def close(self) -> None:
        pass


def hits(points, chunk_ids: list[str] | None) -> list[Hit]:
    """The engine's points as (chunk_id, score): by point id (= row) when the rows' chunk ids are
    known, which spares the engine reading every hit's payload, else from the payload."""
    if chunk_ids is None:
        return [(p.payload["chunk_id"], float(p.score)) for p in points]
    return [(chunk_ids[p.id], float(p.score)) for p in points]


@contextlib.contextmanager
def open_engine(path: str | None = None, url: str | None = None, api_key_env: str | None = None,
                name: str = "", chunk_ids: list[str] | None = None) -> Iterator[EdgeEngine | ServerEngine]:
    """The engine holding collection `name` (server) or the shard at `path` (embedded), opened;
    `chunk_ids`: the collection's rows' chunk ids, which its hits are named by."""
    if url:
        with server_client(url, api_key_env) as client:
            engine = ServerEngine(client, name, chunk_ids)
            engine.open()
            yield engine
        return
    with private_copy(path) as copy:
        engine = EdgeEngine(copy, chunk_ids)
        engine.open()
        try:
            yield engine
        finally:
            engine.close()


@contextlib.contextmanager
def private_copy(path: str) -> Iterator[str]:
    """A copy of the shard at `path` for one reader, removed afterwards: loading a shard rewrites
    some of its files (its config, the storages' journals), so the index's own shard is never
    loaded by a search, and concurrent searches never write the same files."""
    if not Path(path, "edge_config.json").exists():
        raise InputError(f"{path}: no Qdrant shard here (run the index step)")
    scratch = tempfile.mkdtemp(prefix=f".{Path(path).name}.search-", dir=Path(path).parent)
    try:
        with path_lock(path, shared=True):
            shutil.copytree(path, scratch, dirs_exist_ok=True)
        problem = shard_problem(path, copy=scratch)     # its bytes, before any is searched
        if problem:
            forget_times(path)
            raise InputError(f"{problem}: the Qdrant shard was changed after the index built it; run again: "
                             f"the index builds it again")
        yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@contextlib.contextmanager
def server_client(url: str, api_key_env: str | None):
    from qdrant_client import QdrantClient
    if not url.startswith(("http://", "https://")):
        raise InputError(f"qdrant.url: {url!r} is not a server URL (http://host:6333 or https://…)")
    try:
        client = QdrantClient(url=url, api_key=secrets.key(api_key_env), timeout=10,
                              check_compatibility=False)
        client.get_collections()
    except Exception as e:  # a URL it cannot use, any transport error: the server is not there
        raise InputError(f"Qdrant server {url} does not answer ({type(e).__name__}: {e})") from None
    try:
        yield client
    finally:
        client.close()


@contextlib.contextmanager
def path_lock(path: str, shared: bool = False) -> Iterator[None]:
    """Searches of a shard share it; replacing the shard waits for them, across processes."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(f"{path}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
