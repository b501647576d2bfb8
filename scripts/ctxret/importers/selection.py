"""Which documents a run keeps: those without an excluded tag, at least `min_chars` long, and
(sample) a seeded sample of them; or, for manifests with `corpus.slugs` set and that file
written, the frozen list's, in its order. `kept_corpus` answers it while the workflow is read.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ctxret.errors import InputError
from ctxret.fileio import read_text, sha256_text
from ctxret.importers import corpus_files, import_corpus
from ctxret.languages import documents_by_language, letters_by_script
from ctxret.store import JsonStore, content_key, file_states
from ctxret.text.documents import check_slug, select


# The code that reads, cleans and measures documents (this wing, ctxret.text, ctxret.languages): a
# new version of it reads the corpus again instead of serving what an older one read from the store.
READER = sha256_text("".join(p.read_text(encoding="utf-8") for folder in ("importers", "text", "languages")
                             for p in sorted((Path(__file__).parents[1] / folder).glob("*.py"))))


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
    sizes: dict[str, int]      # the kept documents: slug -> characters, in corpus order
    letters: dict[str, int]    # their bodies' letters by script (language.letters_by_script)
    documents: dict[str, int]  # how many of them are in each language (languages.documents_by_language)


def corpus_key(corpus: dict) -> str:
    """The corpus as its reading depends on it: its settings (the language changes which documents
    are kept in no way), its files' names, sizes and times (the frozen slug list's too) and the
    code that reads them (READER)."""
    frozen = frozen_path(corpus)
    files = [*corpus_files(corpus), *([str(frozen)] if frozen else [])]
    return content_key(corpus={k: v for k, v in corpus.items() if k != "language"}, files=file_states(files),
                       reader=READER)


def imported_corpus(corpus: dict, store: str) -> tuple[list[dict], list[str]]:
    """Every document of the corpus and the log lines on the files its format left out
    (importers.import_corpus), read once for each state of its files: kept in the store under
    `corpus_key`, so that the workflow's parse (kept_corpus) reads the corpus and prep takes it
    from there instead of reading it again."""
    def read() -> dict:
        docs, skipped = import_corpus(corpus)
        return {"docs": docs, "skipped": skipped}
    found = JsonStore(store, "corpus-read").remembered(corpus_key(corpus), read)
    return found["docs"], found["skipped"]


def kept_corpus(corpus: dict, store: str) -> Kept:
    """What prep keeps, for the workflow when it is parsed: the documents' sizes (the embedding
    shards), their letters by script and their languages (corpus.language auto). The answer is
    remembered in the store under `corpus_key`, so that every job (which parses the workflow
    again), rerun and dry run of an unchanged corpus of thousands of files skips even loading the
    documents."""
    def measure() -> dict:
        docs = kept(imported_corpus(corpus, store)[0], corpus)
        return {"sizes": [[d["slug"], d["chars"]] for d in docs], "letters": letters_by_script(d["body"] for d in docs),
                "documents": documents_by_language(d["body"] for d in docs)}
    found = JsonStore(store, "corpus-kept").remembered(corpus_key(corpus), measure)
    return Kept(dict(found["sizes"]), found["letters"], found["documents"])

