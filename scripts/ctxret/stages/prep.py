"""prep: the corpus, of any format (ctxret.importers) -> docs-all.jsonl and docs.jsonl.

The kept documents are those without an excluded tag, at least `min_chars` long, and (sample)
a seeded sample of them (ctxret.text.documents.select). For manifests with `corpus.slugs` set, the
first run freezes the kept slugs in that file and later runs read only that list; a manifest
that appears later is named (and left out) until its slug is added to the list. The log names
each file a format left out and why (format files: unreadable, binary, empty, no text layer, ...).
"""
import statistics

from ctxret.fileio import sha256_file, write_jsonl, write_text
from ctxret.importers.selection import frozen_path, imported_corpus, kept
from ctxret.languages import script_warning
from ctxret.presentation.pages import log_warnings
from ctxret.runtime.stage_runner import run_rule
from ctxret.text.documents import excluded


def unlisted(docs: list[dict], listed: list[str], exclude_tags: list[str]) -> list[str]:
    """Documents a frozen list leaves out that no excluded tag explains (added since)."""
    return [d["slug"] for d in docs if d["slug"] not in set(listed) and not excluded(d["tags"], exclude_tags)]


def prep(input, output, params, **_) -> None:
    corpus = dict(params.corpus)
    docs, skipped = imported_corpus(corpus, params.store)   # as the workflow's parse read it
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
    for line in skipped:
        print(line)
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


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
