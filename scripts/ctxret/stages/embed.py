"""embed: a variant's chunk texts, or the questions, as vectors (ctxret.embedding.vectors).

A variant's chunks are embedded in shards, each one job: a shard is a fixed group of documents
(`ctxret.config.plan.shards_of`), and it embeds, into the content-addressed store, the distinct texts whose first
occurrence in the variant is in one of its documents, so concurrent shards never compute the
same text. `embed_chunks` then assembles `<variant>-<model>.npy` from the store (row i = chunk i
of the variant file; the `.json` sidecar names the model, the ids and the texts' sha256), a block
of rows at a time into the file, so that no job holds a variant's whole matrix; what a shard did
not store (none, after a full run) it computes itself. Many questions are embedded likewise: a
question shard is a fixed slice of the questions file's distinct texts (`question_slice`), and
`embed_questions` assembles `q-<model>.npy` from the store. Every one of them embeds at the
precision `embed_precision` settled for the run (results/precision.json), and its log's first line
says which.
"""
import hashlib

import numpy as np

from ctxret.embedding.models import Kind
from ctxret.embedding.precision import described, settle, settled
from ctxret.embedding.vectors import TextsDigest, embed_texts, measured_rate, sidecar
from ctxret.fileio import atomic_path, iter_jsonl, jsonl_blocks, read_json, read_jsonl, write_json, write_npy
from ctxret.presentation.pages import embed_time_lines
from ctxret.presentation.wording import wording
from ctxret.runtime.stage_runner import run_rule
from ctxret.text.documents import units_of

ASSEMBLY_ROWS = 8192  # rows looked up in the store and written at a time
PROBE_TEXTS = 2000    # at most this many of the corpus's units are texts auto's probe may time


def probe_texts(docs: list[dict]) -> list[str]:
    """The texts `auto`'s probe may time: the documents' units (what chunks are cut from), at
    most PROBE_TEXTS of them, evenly spaced in corpus order."""
    texts = [doc["body"][u["start"]:u["end"]] for doc in docs for u in units_of(doc)]
    return texts[::max(1, -(-len(texts) // PROBE_TEXTS))]


def embed_time(input, output, params, resources, **_) -> None:
    """The free stages' expected embedding time: per model slot, the texts it embeds (every variant's
    chunks and the questions; those already in the store are not embedded again, so an upper bound)
    at the speed the store measured for it at its threads on this machine (vectors.measured_rate),
    with its threads and with this run's --cores (shards side by side)."""
    chunks, questions = (sum(1 for _ in iter_jsonl(path)) for path in (input.chunks, input.questions))
    slots = {}
    for slot, settings in dict(params.models).items():
        threads, variants = int(params.threads[slot]), len(params.variants[slot])
        texts, rate = chunks * variants + questions, measured_rate(params.store, settings, threads)
        per_s = rate["texts"] / rate["seconds"] if rate and rate["seconds"] > 0 else None
        jobs = max(1, int(resources.cores_planned) // threads)
        slots[slot] = {"texts": texts, "variants": variants, "chunks": chunks, "questions": questions,
                       "threads": threads, "texts_per_s": per_s, "measured_texts": rate["texts"] if rate else 0,
                       "hours": texts / per_s / 3600 if per_s else None, "cores": int(resources.cores_planned),
                       "jobs": jobs, "hours_cores": texts / per_s / 3600 / jobs if per_s else None}
    write_json(output.json, slots)
    for line in embed_time_lines(slots, wording(params.language)):
        print(line)


def embed_precision(input, output, params, **_) -> None:
    found = settle(dict(params.models), dict(params.threads), probe_texts(read_jsonl(input.docs)), params.store,
                   bool(params.offline))
    write_json(output.json, found)
    for slot, record in found.items():
        print(f"{slot}: precision {described(record)}")


def slot_settings(input, params) -> dict:
    """The slot's settings at the precision the run settled; the log's first line says which."""
    record = settled(input.precision, params.model_name)
    print(f"{params.model_name}: precision {described(record)}")
    return {**dict(params.model), "precision": record["precision"]}


def owned_texts(rows, slugs: set[str]) -> list[str]:
    """The distinct texts of `rows` whose first occurrence is in a document of `slugs`."""
    seen, mine = set(), []
    for r in rows:
        digest = hashlib.blake2b(r["text"].encode(), digest_size=16).digest()
        if digest not in seen:
            seen.add(digest)
            if r["slug"] in slugs:
                mine.append(r["text"])
    return mine


def embed_shard(input, output, params, threads=1, **_) -> None:
    settings = slot_settings(input, params)
    texts = owned_texts((r for _, r in iter_jsonl(input.variant)), set(params.slugs))
    _, computed, ident = embed_texts(texts, "passage", settings, params.store, threads,
                                     int(params.flush_every), bool(params.offline))
    write_json(output.meta, {"variant": params.variant, "model": params.model_name, "shard": params.shard,
                             "documents": len(params.slugs), "texts": len(texts), "computed": computed,
                             "texts_sha256": TextsDigest(texts).hexdigest(), "identity": ident})
    print(f"{params.variant} {params.model_name} shard {params.shard}: documents {len(params.slugs)}, "
          f"texts {len(texts)}, computed {computed}, from store {len(texts) - computed}")


def question_slice(questions: list[dict], shard: int, shards: int) -> list[str]:
    """Slice `shard` of `shards` of the questions' distinct texts (file order): the slices cover
    every text once."""
    texts = list(dict.fromkeys(q["question"] for q in questions))
    return texts[shard * len(texts) // shards:(shard + 1) * len(texts) // shards]


def embed_question_shard(input, output, params, threads=1, **_) -> None:
    settings = slot_settings(input, params)
    texts = question_slice(read_jsonl(input.questions), int(params.shard), int(params.shards))
    _, computed, ident = embed_texts(texts, "query", settings, params.store, threads,
                                     int(params.flush_every), bool(params.offline))
    write_json(output.meta, {"model": params.model_name, "shard": params.shard, "shards": params.shards,
                             "texts": len(texts), "computed": computed,
                             "texts_sha256": TextsDigest(texts).hexdigest(), "identity": ident})
    print(f"questions {params.model_name} shard {params.shard} of {params.shards}: texts {len(texts)}, "
          f"computed {computed}, from store {len(texts) - computed}")


def _embed(output, params, settings: dict, threads: int, kind: Kind, ids: list[str],
           texts: list[str]) -> tuple[np.ndarray, int, str]:
    matrix, computed, ident = embed_texts(texts, kind, settings, params.store, threads,
                                          int(params.flush_every), bool(params.offline))
    write_npy(output.npy, matrix)
    write_json(output.meta, sidecar(settings, ident, ids, TextsDigest(texts).hexdigest(), matrix.shape[1]))
    return matrix, computed, ident.get("precision", "fp32")


def embed_chunks(input, output, params, threads=1, **_) -> None:
    settings = slot_settings(input, params)
    count = sum(1 for _ in iter_jsonl(input.variant))
    ids, digest, distinct, computed = [], TextsDigest(), set(), 0
    with atomic_path(output.npy) as tmp:
        matrix = None
        for block in jsonl_blocks(input.variant, ASSEMBLY_ROWS) if count else [[]]:
            texts = [r["text"] for r in block]
            vectors, now, ident = embed_texts(texts, "passage", settings, params.store, threads,
                                              int(params.flush_every), bool(params.offline))
            if matrix is None and count:
                matrix = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float32, shape=(count, vectors.shape[1]))
            if count:
                matrix[len(ids):len(ids) + len(block)] = vectors
            ids += [r["chunk_id"] for r in block]
            digest.update(texts)
            distinct.update(hashlib.blake2b(t.encode(), digest_size=16).digest() for t in texts)
            computed += now
        dims = vectors.shape[1]
        if matrix is None:
            with open(tmp, "wb") as f:
                np.save(f, vectors)
        else:
            matrix.flush()
            del matrix
    write_json(output.meta, sidecar(settings, ident, ids, digest.hexdigest(), dims))
    computed += sum(read_json(s)["computed"] for s in input.shards)
    print(f"{params.variant} {params.model_name}: chunks {count}, computed {computed}, "
          f"from store {len(distinct) - computed}, dims {dims}, {ident.get('precision', 'fp32')}, "
          f"shards {len(input.shards)}")


def embed_questions(input, output, params, threads=1, **_) -> None:
    settings = slot_settings(input, params)
    questions = read_jsonl(input.questions)
    matrix, computed, precision = _embed(output, params, settings, threads, "query", [q["id"] for q in questions],
                                         [q["question"] for q in questions])
    computed += sum(read_json(s)["computed"] for s in input.shards)
    print(f"questions {params.model_name}: {len(questions)}, computed {computed}, "
          f"from store {len({q['question'] for q in questions}) - computed}, dims {matrix.shape[1]}, {precision}, "
          f"shards {len(input.shards)}")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
