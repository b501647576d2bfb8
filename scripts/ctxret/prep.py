"""prep: the corpus, of any format (ctxret.importers) -> docs-all.jsonl and docs.jsonl.

The kept documents are those without an excluded tag, at least `min_chars` long, and (sample)
a seeded sample of them (ctxret.documents.select). For manifests with `corpus.slugs` set, the
first run freezes the kept slugs in that file and later runs read only that list; a manifest
that appears later is named (and left out) until its slug is added to the list.
"""
from __future__ import annotations

import os
import statistics
from pathlib import Path

from .documents import check_slug, excluded, select
from .errors import InputError
from .fileio import read_text, sha256_file, write_jsonl, write_text
from .importers import corpus_files, read_corpus
from .language import script_warning
from .presentation import log_warnings
from .store import JsonStore, content_key


def read_slugs(path: Path) -> list[str]:
    slugs: dict[str, int] = {}
    for lineno, line in enumerate(read_text(path).splitlines(), 1):
        if line.strip():
            slug = check_slug(line.strip(), f"{path}:{lineno}")
            if slug in slugs:
                raise InputError(f"{path}:{lineno}: slug {slug!r} repeated (first at line {slugs[slug]})")
            slugs[slug] = lineno
    if not slugs:
        raise InputError(f"{path}: the frozen slug list is empty; list the slugs to keep, one a line, "
                         f"or delete the file to freeze the selection again")
    return list(slugs)


def frozen_path(corpus: dict) -> Path | None:
    return Path(corpus["slugs"]) if corpus["format"] == "manifests" and corpus["slugs"] else None


def kept(docs: list[dict], corpus: dict) -> list[dict]:
    """The kept documents: the frozen list's, in its order, or the selection."""
    frozen = frozen_path(corpus)
    if frozen is not None and frozen.exists():
        by_slug = {d["slug"]: d for d in docs}
        slugs = read_slugs(frozen)
        missing = [s for s in slugs if s not in by_slug]
        if missing:
            raise InputError(f"{frozen}: slugs with no manifest: {', '.join(missing)}")
        return [by_slug[s] for s in slugs]
    out = select(docs, corpus["exclude_tags"], corpus["min_chars"], corpus["sample"], corpus["seed"])
    if not out:
        raise InputError(f"{corpus['path']}: no document is kept (exclude_tags {corpus['exclude_tags']}, "
                         f"min_chars {corpus['min_chars']})")
    return out


def kept_sizes(corpus: dict, store: str) -> dict[str, int]:
    """What prep keeps (slug -> characters), for the workflow when it is parsed: it reads (and so
    checks) the corpus once, then remembers the answer in the store under the corpus files'
    names, sizes and times, so that every job (which parses the workflow again), rerun and dry
    run of an unchanged corpus of thousands of files skips the reading."""
    frozen = frozen_path(corpus)
    files = [*corpus_files(corpus), *([str(frozen)] if frozen else [])]
    stats = [[f, st.st_size, st.st_mtime_ns] for f in files if (st := _stat(f))]
    cache, key = JsonStore(store, "corpus-sizes"), content_key(corpus=corpus, files=stats)
    found = cache.get(key)
    if found is not None:
        return dict(found)
    sizes = {d["slug"]: d["chars"] for d in kept(read_corpus(corpus), corpus)}
    try:
        cache.put(key, list(sizes.items()))
    except OSError:
        pass  # only a cache: the next parse reads the corpus again
    return sizes


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def unlisted(docs: list[dict], listed: list[str], exclude_tags: list[str]) -> list[str]:
    """Documents a frozen list leaves out that no excluded tag explains (added since)."""
    return [d["slug"] for d in docs if d["slug"] not in set(listed) and not excluded(d["tags"], exclude_tags)]


def run(input, output, params, **_) -> None:
    corpus = dict(params.corpus)
    docs = read_corpus(corpus)
    frozen = frozen_path(corpus)
    created = frozen is not None and not frozen.exists()
    keep = kept(docs, corpus)
    if created:
        write_text(frozen, "".join(d["slug"] + "\n" for d in keep))
    write_jsonl(output.docs_all, docs)
    write_jsonl(output.docs, keep)
    if created:
        print(f"{frozen}: written now (frozen from here on)")
    n_excluded = sum(1 for d in docs if excluded(d["tags"], corpus["exclude_tags"]))
    lengths = [d["chars"] for d in keep]
    print(f"{corpus['format']} {corpus['path']}: documents {len(docs)}, excluded by tag "
          f"{list(corpus['exclude_tags'])} {n_excluded}, kept {len(keep)}")
    untitled = sum(1 for d in keep if not d["title"])
    if untitled:
        print(f"documents without a title {untitled} of {len(keep)}: T1 has no title line for them "
              f"(corpus.columns.title names the title field)")
    if frozen is not None and not created:
        late = unlisted(docs, [d["slug"] for d in keep], corpus["exclude_tags"])
        if late:
            print(f"warning: {len(late)} documents are not in the frozen list {frozen} and are left out: "
                  f"{', '.join(late)} (append a slug to that file to include its document)")
    log_warnings([w for w in [script_warning((d["body"] for d in keep), corpus["language"])] if w])
    print(f"document length (chars) min {min(lengths):,}, median {statistics.median(lengths):,.0f}, "
          f"max {max(lengths):,}, sum {sum(lengths):,}")
    if frozen is not None:
        print(f"{frozen} sha256 {sha256_file(frozen)}")
    print(f"{output.docs} sha256 {sha256_file(output.docs)}")
