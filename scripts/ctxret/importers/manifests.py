"""manifests: a directory of `<name>.json` manifests ({slug, title, tags, body}) and markdown
bodies with `## ` section headings (the reference's own format)."""
from __future__ import annotations

from pathlib import Path

from ctxret.errors import InputError
from ctxret.fileio import read_json, read_text
from ctxret.text.documents import check_slug, document


def manifest_paths(directory: str | Path) -> list[Path]:
    found = sorted(Path(directory).glob("*.json"))
    if not found:
        raise InputError(f"{directory}: no manifests (*.json) in this directory")
    return found


def only_headings(body: str) -> bool:
    """Every non-blank line a `## ` heading (what `blocks` would make all headings), without
    splitting the body into blocks."""
    return all(line.startswith("## ") or not line.strip() for line in body.splitlines())


def read_manifest(path: Path, folder: Path | None = None) -> dict:
    """One document; `folder` is the manifest's folder resolved (given once for a whole corpus)."""
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
    if (folder or path.parent.resolve()) not in body_path.parents:
        raise InputError(f"{path}: body {meta['body']!r} lies outside {path.parent}")
    if not body_path.exists():
        raise InputError(f"{path}: body file {meta['body']} not found")
    if not body_path.is_file():
        raise InputError(f"{path}: body {meta['body']} is not a file")
    body = read_text(body_path).replace("\r\n", "\n").strip()
    if not body:
        raise InputError(f"{body_path}: the document is empty")
    if only_headings(body):
        raise InputError(f"{body_path}: the document has only `## ` headings, no text")
    return document(slug, meta["title"].strip(), body, tags=tags)


def read_articles(manifests: list[Path]) -> list[dict]:
    docs, seen, folders = [], {}, {}
    for path in map(Path, manifests):
        folder = folders.setdefault(path.parent, path.parent.resolve())
        doc = read_manifest(path, folder)
        if doc["slug"] in seen:
            raise InputError(f"{path}: duplicate slug {doc['slug']!r} (also in {seen[doc['slug']]})")
        seen[doc["slug"]] = path
        docs.append(doc)
    return docs


def read_corpus(directory: str) -> list[dict]:
    return read_articles(manifest_paths(directory))
