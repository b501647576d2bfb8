"""index: one Qdrant collection per variant — a named dense vector per model, sparse `bm25`.

The manifest (points, vector config, input sha256) is the file Snakemake tracks. A collection
whose inputs did not change is not rebuilt. Vectors are memory-mapped and the points go to the
engine a batch at a time, and the texts are analysed a block at a time (their term ids kept as
int32 arrays), so the step holds the BM25 matrix, not the vectors or the corpus's token strings;
Kiwi's model, the term ids and bm25s's copy of the weights are gone before the engine is filled.
"""
import faulthandler
import multiprocessing
import os
import shutil
import signal
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

from ctxret.errors import InputError
from ctxret.fileio import (atomic_path, canonical_json, iter_jsonl, jsonl_blocks, sha256_file, sha256_text, write_json,
                           write_text)
from ctxret.retrieval.bm25 import bm25_weights, make_tokenizer, tag_family, term_ids
from ctxret.retrieval.qdrant import EdgeEngine, Hnsw, PointData, ServerEngine, distance_for, path_lock, server_client
from ctxret.retrieval.shard_records import contents_path, record_contents, shard_problem
from ctxret.runtime.stage_runner import run_rule

BATCH = 512          # points sent to the engine at a time
TOKEN_BLOCK = 4096   # texts analysed (or read from the store) at a time
FORMAT = 3  # bump when the collection layout changes: part of the fingerprint


def hnsw_of(search: dict) -> Hnsw | None:
    """The HNSW graph `search.exact: false` asks for; None: exact search, no graph."""
    if search["exact"]:
        return None
    h = search["hnsw"]
    return Hnsw(int(h["m"]), int(h["ef_construct"]), int(h["ef"]))


def fill(engine, rows: list[dict], dense: dict[str, np.ndarray], matrix, hnsw: Hnsw | None) -> None:
    """Create the collection on `engine` and load every point into it."""
    engine.create({m: (int(v.shape[1]), distance_for(v)) for m, v in dense.items()}, hnsw)
    matrix = matrix.tocsr()
    matrix.sort_indices()
    for start in range(0, len(rows), BATCH):
        stop = min(start + BATCH, len(rows))
        block = {m: np.ascontiguousarray(v[start:stop], dtype=np.float32) for m, v in dense.items()}
        points = []
        for i in range(start, stop):
            lo, hi = matrix.indptr[i], matrix.indptr[i + 1]
            points.append(PointData(i, {m: b[i - start] for m, b in block.items()},
                                    (matrix.indices[lo:hi].tolist(), matrix.data[lo:hi].astype(float).tolist()),
                                    {"chunk_id": rows[i]["chunk_id"], "slug": rows[i]["slug"]}))
        engine.upsert(points)
    engine.finish()


class VariantTokens:
    """The variant's texts as token lists, through the tokenizer's store a block at a time, read
    from the variant file anew each time it is iterated (`analysed`: the texts the first reading
    analysed; `tags`: the tokens it kept per Kiwi tag)."""

    def __init__(self, variant: str, tokenizer, store: str):
        self.variant, self.tokenizer, self.store, self.analysed, self.tags = variant, tokenizer, store, 0, None

    def __iter__(self):
        analysed, tags = 0, Counter()
        for block in jsonl_blocks(self.variant, TOKEN_BLOCK):
            tokens, now, kept = self.tokenizer.cached_many([r["text"] for r in block], self.store)
            analysed += now
            tags.update(kept)
            yield from tokens
        if self.tags is None:   # the first reading's (a second finds them stored)
            self.analysed, self.tags = analysed, tags


def analysed_terms(variant: str, settings: dict, threads: int, store: str) -> tuple[dict, int, Counter, dict, list]:
    """(the analyser's description, texts it analysed now, tokens kept per tag, vocab, each text's
    term ids)."""
    tokenizer = make_tokenizer(settings, threads)
    tokens = VariantTokens(variant, tokenizer, store)
    vocab, ids = term_ids(tokens)
    return tokenizer.describe(), tokens.analysed, tokens.tags, vocab, ids


def bm25_of(variant: str, settings: dict, threads: int, store: str) -> tuple[dict, int, Counter, dict, object]:
    """(the analyser's description, texts it analysed now, tokens kept per tag, vocab, CSR matrix
    of BM25 weights)."""
    described, analysed, tags, vocab, ids = analysed_terms(variant, settings, threads, store)
    return described, analysed, tags, vocab, bm25_weights(vocab, ids, float(settings["k1"]), float(settings["b"]))[1]


def kept_by_family(tags: Counter) -> dict[str, dict[str, int]]:
    """Tokens kept per tag family, each with its tags: {"VV": {"VV": 9, "VV-R": 3, "VV-I": 1}}."""
    families: dict[str, dict[str, int]] = {}
    for tag, n in sorted(tags.items()):
        families.setdefault(tag_family(tag), {})[tag] = n
    return dict(sorted(families.items(), key=lambda item: -sum(item[1].values())))


def family_line(families: dict[str, dict[str, int]]) -> str:
    """"NNG 1,204, VV 310 (VV 250, VV-R 41, VV-I 19), ...": the index log's count."""
    def one(family, tags):
        split = f" ({', '.join(f'{t} {n:,}' for t, n in tags.items())})" if len(tags) > 1 else ""
        return f"{family} {sum(tags.values()):,}{split}"
    return ", ".join(one(f, t) for f, t in families.items())


def index(input, output, params, threads=1, **_) -> None:
    variant = params.variant
    name = f"v_{variant}"
    rows = [{"chunk_id": r["chunk_id"], "slug": r["slug"]} for _, r in iter_jsonl(input.variant)]
    models = list(params.models)
    dense = {m: np.load(p, mmap_mode="r") for m, p in zip(models, input.emb)}
    for m, v in dense.items():
        if v.shape[0] != len(rows):
            raise InputError(f"{input.variant}: {len(rows)} chunks but {v.shape[0]} {m} vectors")
    described, analysed, tags, vocab, matrix = bm25_of(input.variant, dict(params.bm25), threads, params.store)
    families = kept_by_family(tags)
    hnsw = hnsw_of(dict(params.search))
    inputs = {str(p): sha256_file(p) for p in [input.variant, *input.emb]}
    scoring = {k: v for k, v in dict(params.bm25).items() if k != "threads"}
    fingerprint = sha256_text(canonical_json({"format": FORMAT, "inputs": inputs, "bm25": scoring,
                                              "tokenizer": described, "vocab": vocab,
                                              "hnsw": hnsw and vars(hnsw)}))
    if params.qdrant_url:
        with server_client(params.qdrant_url, params.api_key_env) as client:
            engine = ServerEngine(client, name)
            fill(engine, rows, dense, matrix, hnsw)
            points = engine.count()
        built = True
    else:
        built, points = build_embedded(params.qdrant_path, fingerprint,
                                       lambda engine: fill(engine, rows, dense, matrix, hnsw))
    write_json(output.vocab, {"tokenizer": described, "k1": params.bm25["k1"],
                              "b": params.bm25["b"], "vocab": vocab,
                              "chunk_ids": [r["chunk_id"] for r in rows]})
    write_sparse(output.matrix, matrix)
    write_json(output.manifest, {
        "collection": name, "points": points, "fingerprint": fingerprint,
        "dense": {m: {"size": int(v.shape[1]), "distance": distance_for(v)} for m, v in dense.items()},
        "sparse": {"bm25": {"vocabulary": len(vocab)}}, "hnsw": hnsw and vars(hnsw), "inputs": inputs,
        "tokenizer": described, "kept_by_tag": families, "server": bool(params.qdrant_url),
        "shard": None if params.qdrant_url else params.qdrant_path})   # checked as every run starts
    print(f"{name}: points {points}, dense {list(dense)}, bm25 vocabulary {len(vocab)}, analyser "
          f"{params.bm25['analyser']}, {'HNSW ' + str(vars(hnsw)) if hnsw else 'exact (no HNSW graph)'} "
          f"(texts analysed now {analysed}, the rest from the store), "
          f"{'built' if built else 'kept (inputs unchanged)'}")
    if families:
        print(f"{name}: BM25 tokens kept by part of speech: {family_line(families)}")


def write_sparse(path: str, matrix) -> None:
    import scipy.sparse as sp
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            sp.save_npz(f, matrix.tocsr())


def build_embedded(path: str, fingerprint: str, load) -> tuple[bool, int]:
    """(False, points) when the shard at `path` was built from the same inputs and is still what
    was built (kept as is); else `load(engine)` fills a new shard beside it, which then replaces
    the old one whole (no half-built shard is ever visible) and its contents are recorded: (True, points)."""
    stamp = Path(f"{path}.fingerprint")   # "<fingerprint> <points>": a kept shard is never loaded
    kept = stamp.read_text().split() if stamp.exists() else []
    if Path(path, "edge_config.json").exists() and kept[:1] == [fingerprint] and shard_problem(path) is None:
        if not contents_path(path).exists():   # built before shards were recorded
            record_contents(path)
        return False, int(kept[1])
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    for left in Path(path).parent.glob(f".{Path(path).name}.*"):   # a build killed before its cleanup
        if not left.name.startswith(f".{Path(path).name}.search-"):
            shutil.rmtree(left, ignore_errors=True)
    staged = tempfile.mkdtemp(prefix=f".{Path(path).name}.", dir=Path(path).parent)
    try:
        points = filled_apart(os.path.join(staged, "shard"), load, path)
        with path_lock(path):
            contents_path(path).unlink(missing_ok=True)
            if Path(path).exists():
                shutil.rmtree(path)
            os.replace(os.path.join(staged, "shard"), path)
            record_contents(path)
            write_text(stamp, f"{fingerprint} {points}")
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    return True, points


def filled_apart(path: str, load, named: str) -> int:
    """A new shard at `path` (the shard `named`, staged) filled by `load(engine)`, in a forked
    process: the engine writes memory-mapped files, and one the disk has no room for kills its
    process with SIGBUS, which no Python code can catch; here that is one line. Returns the
    shard's points."""
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)

    def fill_and_count() -> None:
        faulthandler.disable()       # its SIGBUS is said by the parent, in one line
        engine = EdgeEngine(path)
        try:
            load(engine)
            writer.send((True, engine.count()))
        except BaseException as e:   # sent whole to the parent, which raises it
            writer.send((False, e if isinstance(e, (InputError, OSError)) else RuntimeError(repr(e))))
        finally:
            engine.close()

    child = context.Process(target=fill_and_count)
    child.start()
    writer.close()
    try:
        ok, value = reader.recv()
    except EOFError:   # died without a word
        child.join()
        free = shutil.disk_usage(Path(path).parent).free
        cause = "SIGBUS: a memory-mapped file the device had no room for" if child.exitcode == -signal.SIGBUS \
            else f"exit {child.exitcode}"
        raise InputError(f"{named}: the Qdrant shard could not be written ({cause}; {free:,} bytes free on its "
                         f"device); free some space and run again") from None
    child.join()
    if not ok:
        raise value
    return value


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
