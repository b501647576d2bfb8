"""Which documents a run keeps: those without an excluded tag, at least `min_chars` long, and
(sample) a seeded sample of them; or, for manifests with `corpus.slugs` set and that file
written, the frozen list's, in its order. `kept_corpus` answers it while the workflow is read.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .documents import check_slug, select
from .errors import InputError
from .fileio import read_text
from .importers import corpus_files, read_corpus
from .language import letters_by_script
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


@dataclass(frozen=True)
class Kept:
    sizes: dict[str, int]    # the kept documents: slug -> characters, in corpus order
    letters: dict[str, int]  # their bodies' letters by script (language.letters_by_script)


def kept_corpus(corpus: dict, store: str) -> Kept:
    """What prep keeps, for the workflow when it is parsed: the documents' sizes (the embedding
    shards) and their letters by script (corpus.language auto). It reads (and so checks) the
    corpus once, then remembers the answer in the store under the corpus files' names, sizes and
    times, so that every job (which parses the workflow again), rerun and dry run of an unchanged
    corpus of thousands of files skips the reading. The language is not part of the key: it
    changes which documents are kept in no way."""
    frozen = frozen_path(corpus)
    files = [*corpus_files(corpus), *([str(frozen)] if frozen else [])]
    stats = [[f, st.st_size, st.st_mtime_ns] for f in files if (st := _stat(f))]
    selection = {k: v for k, v in corpus.items() if k != "language"}
    cache, key = JsonStore(store, "corpus-kept"), content_key(corpus=selection, files=stats)
    found = cache.get(key)
    if found is not None:
        return Kept(dict(found["sizes"]), found["letters"])
    docs = kept(read_corpus(corpus), corpus)
    answer = Kept({d["slug"]: d["chars"] for d in docs}, letters_by_script(d["body"] for d in docs))
    try:
        cache.put(key, {"sizes": list(answer.sizes.items()), "letters": answer.letters})
    except OSError:
        pass  # only a cache: the next parse reads the corpus again
    return answer


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None
