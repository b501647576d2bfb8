"""chunks: a document body cut into chunks by one strategy (ctxret.chunkers.corpus), written with
what the log says of them.
"""
import hashlib
import resource
import statistics
import time
from collections import Counter
from typing import Iterable, Iterator

from ctxret.chunkers import CHUNKERS, Tools
from ctxret.chunkers.corpus import chunk_rows
from ctxret.fileio import read_jsonl, sha256_file, write_jsonl
from ctxret.runtime.stage_runner import run_rule
from ctxret.text.chunk_text import t0_text, t1_text


WHOLE_RECORDS = ("table", "beir")  # formats whose gold names whole records (pages, passages)


def split_records(docs: list[dict], counts: Counter) -> list[dict]:
    """The documents cut into more than one chunk."""
    return [d for d in docs if counts[d["slug"]] > 1]


class Tally:
    """What the log says of the chunks, gathered as they pass to the file (`passing`): chunks per
    document, T1 and T0 lengths, chunks covering several units, and groups of chunk ids whose
    texts are the same (near-duplicate paragraphs that the importers' exact dedup keeps, or
    repeated boilerplate; one group per text, in chunk order; texts kept as digests)."""

    def __init__(self, t1_template: str):
        self.t1_template, self.per_slug, self.t1, self.t0, self.multi = t1_template, Counter(), [], [], 0
        self.by_text: dict[bytes, list[str]] = {}

    def passing(self, chunks: Iterable[dict]) -> Iterator[dict]:
        for c in chunks:
            self.per_slug[c["slug"]] += 1
            self.t1.append(len(t1_text(c, self.t1_template)))
            self.t0.append(len(t0_text(c)))
            self.multi += len(c["units"]) > 1
            self.by_text.setdefault(hashlib.blake2b(c["text"].encode(), digest_size=16).digest(), []).append(c["chunk_id"])
            yield c

    def identical_texts(self) -> list[list[str]]:
        return [ids for ids in self.by_text.values() if len(ids) > 1]


def tools_for(chunker: str, settings: dict, input, params, threads: int) -> Tools:
    """Token counts (recursive) or sentence vectors (semantic, at the precision the run settled)
    from the configured model slot."""
    needs = CHUNKERS[chunker].needs
    if needs is None:
        return Tools()
    model = dict(settings["model"])
    if needs == "tokens":
        from ctxret.embedding.models import load_tokenizer
        counter = load_tokenizer(model, bool(params.offline))
        return Tools(count_tokens=lambda texts: counter.token_counts(texts, "passage"))
    from ctxret.embedding.precision import settled
    from ctxret.embedding.vectors import embed_texts
    model["precision"] = settled(input.precision[0], params.slot)["precision"]
    return Tools(embed=lambda texts: embed_texts(texts, "passage", model, params.store, threads,
                                                 max(1, len(texts)), bool(params.offline))[0])


def chunks(input, output, params, threads=1, **_) -> None:
    docs = read_jsonl(input.docs)
    started = time.perf_counter()
    settings = dict(params.settings)
    tally = Tally(params.t1_template)
    write_jsonl(output.chunks, tally.passing(chunk_rows(docs, settings, params.chunker,
                                                        tools_for(params.chunker, settings, input, params, threads))))
    seconds = time.perf_counter() - started
    counts, t1, t0 = tally.per_slug, tally.t1, tally.t0
    per_doc = [counts[d["slug"]] for d in docs]
    print(f"chunker {params.chunker}: documents {len(docs)}, chunks {len(t1)}, "
          f"T1 mean {statistics.mean(t1):.0f} chars, T0 mean {statistics.mean(t0):.0f} chars")
    print(f"chunks per document min {min(per_doc)}, median {statistics.median(per_doc):g}, "
          f"max {max(per_doc)}; chunks covering more than one unit {tally.multi}")
    for line in CHUNKERS[params.chunker].notes(docs, settings):
        print(line)
    split = split_records(docs, counts) if params.format in WHOLE_RECORDS else []
    if split:
        longest = max(d["chars"] for d in split)
        print(f"warning: {len(split)} of {len(docs)} {params.format} records are split into several chunks "
              f"(the longest has {longest:,} characters): a hit is then any of a gold document's chunks, not "
              f"the record as the benchmark judges it; for document-level figures set chunking.chunker: "
              f"document, or chunking.paragraph.max_chars above {longest:,}")
    print(f"chunks whose T0 is empty (body only a heading line) {sum(1 for n in t0 if n == 0)}")
    same = tally.identical_texts()
    print(f"chunks with the same text as another chunk {sum(map(len, same))} in {len(same)} groups"
          + (f": {'; '.join(' = '.join(ids) for ids in same[:20])}" + (" ..." if len(same) > 20 else "")
             if same else ""))
    print(f"time {seconds:.1f} s (chunking and writing), peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    print(f"{output.chunks} sha256 {sha256_file(output.chunks)}")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
