"""prep: manifests (*.json) + bodies (*.mdx) -> docs-all.jsonl and docs.jsonl.

The first run freezes the kept slugs in a slugs file; later runs read only that list.
"""
from __future__ import annotations

import re
import statistics
from pathlib import Path

from .errors import InputError
from .fileio import read_json, sha256_file, sha256_text, write_jsonl, write_text

SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def check_slug(slug: object, where: str) -> str:
    """A slug names files and wildcards: no path separators, no `..`, nothing hidden."""
    if not isinstance(slug, str) or not SLUG.fullmatch(slug) or ".." in slug:
        raise InputError(f"{where}: slug {slug!r} is not a plain name "
                         "(letters, digits, '.', '_', '-'; no '/' or '..')")
    return slug


def read_manifest(path: Path) -> dict:
    meta = read_json(path)
    if not isinstance(meta, dict):
        raise InputError(f"{path}:1: a manifest is a JSON object")
    for field in ("slug", "title", "body"):
        if not isinstance(meta.get(field), str) or not meta[field].strip():
            raise InputError(f"{path}: field {field!r} is missing or empty")
    slug = check_slug(meta["slug"], str(path))
    tags = meta.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise InputError(f"{path}: field 'tags' must be a list of strings")
    body_path = (path.parent / meta["body"]).resolve()
    if path.parent.resolve() not in body_path.parents:
        raise InputError(f"{path}: body {meta['body']!r} lies outside {path.parent}")
    try:
        body = body_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: body file {meta['body']} not found") from None
    except UnicodeDecodeError:
        raise InputError(f"{body_path}: not UTF-8 text") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read body {meta['body']} ({e.strerror})") from None
    body = body.replace("\r\n", "\n").strip()
    if not body:
        raise InputError(f"{body_path}: the document is empty")
    return {"slug": slug, "title": meta["title"].strip(), "tags": tags, "body": body,
            "sha256": sha256_text(body), "chars": len(body)}


def read_articles(manifests: list[Path]) -> list[dict]:
    if not manifests:
        raise InputError("no manifests (*.json) given")
    docs, seen = [], {}
    for path in map(Path, manifests):
        doc = read_manifest(path)
        if doc["slug"] in seen:
            raise InputError(f"{path}: duplicate slug {doc['slug']!r} (also in {seen[doc['slug']]})")
        seen[doc["slug"]] = path
        docs.append(doc)
    return docs


def read_slugs(path: Path) -> list[str]:
    slugs: dict[str, int] = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            slug = check_slug(line.strip(), f"{path}:{lineno}")
            if slug in slugs:
                raise InputError(f"{path}:{lineno}: slug {slug!r} repeated (first at line {slugs[slug]})")
            slugs[slug] = lineno
    return list(slugs)


def excluded(tags: list[str], exclude_tags: list[str]) -> bool:
    return bool(set(tags) & set(exclude_tags))


def select(docs: list[dict], exclude_tags: list[str], slugs_path: Path) -> tuple[list[dict], bool]:
    """The kept documents in slug-list order, and whether the list was written now."""
    by_slug = {d["slug"]: d for d in docs}
    if slugs_path.exists():
        slugs = read_slugs(slugs_path)
        missing = [s for s in slugs if s not in by_slug]
        if missing:
            raise InputError(f"{slugs_path}: slugs with no manifest: {', '.join(missing)}")
        return [by_slug[s] for s in slugs], False
    kept = [d for d in docs if not excluded(d["tags"], exclude_tags)]
    if not kept:
        raise InputError(f"every document carries an excluded tag {exclude_tags}")
    write_text(slugs_path, "".join(d["slug"] + "\n" for d in kept))
    return kept, True


def run(input, output, params, **_) -> None:
    docs = read_articles(list(input.manifests))
    slugs_path = Path(params.slugs)
    kept, created = select(docs, list(params.exclude_tags), slugs_path)
    write_jsonl(output.docs_all, docs)
    write_jsonl(output.docs, kept)
    if created:
        print(f"{slugs_path}: written now (frozen from here on)")
    n_excluded = sum(1 for d in docs if excluded(d["tags"], params.exclude_tags))
    lengths = [d["chars"] for d in kept]
    print(f"manifests {len(docs)}, excluded by tag {list(params.exclude_tags)} {n_excluded}, "
          f"kept {len(kept)}")
    print(f"document length (chars) min {min(lengths):,}, median {statistics.median(lengths):,.0f}, "
          f"max {max(lengths):,}, sum {sum(lengths):,}")
    print(f"{slugs_path} sha256 {sha256_file(slugs_path)}")
    print(f"{output.docs} sha256 {sha256_file(output.docs)}")
