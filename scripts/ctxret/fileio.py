"""Reading and writing files: JSONL with file:line errors, atomic writes, sha256."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from itertools import islice
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np

from ctxret.errors import InputError

# Input text is UTF-8; a byte-order mark at the start is accepted and dropped.
TEXT_ENCODING = "utf-8-sig"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def canonical_json(obj: Any) -> str:
    """One spelling per value: the basis of every content key."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _read_problem(path, e: OSError) -> InputError:
    """A file that cannot be opened or read, said in one line with what to do."""
    if isinstance(e, FileNotFoundError):
        return InputError(f"{path}: file not found")
    if isinstance(e, IsADirectoryError):
        return InputError(f"{path}: is a directory, not a file")
    return InputError(f"{path}: cannot read it ({e.strerror or e}); make it readable or name another file")


def _decode(path, data: bytes, first_line: int = 1) -> str:
    """UTF-8 text (a leading BOM dropped); undecodable bytes are named by line and byte."""
    try:
        return data.decode(TEXT_ENCODING if first_line == 1 else "utf-8")
    except UnicodeDecodeError as e:
        line = first_line + data.count(b"\n", 0, e.start)
        raise InputError(f"{path}:{line}: not UTF-8 text (byte {data[e.start]:#04x}); "
                         f"save the file as UTF-8") from None


def read_text(path: str | os.PathLike) -> str:
    """A UTF-8 text file (BOM dropped); one clear error when missing, unreadable or not UTF-8."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise _read_problem(path, e) from None
    return _decode(path, data)


def read_json(path: str | os.PathLike) -> Any:
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{path}:{e.lineno}: malformed JSON ({e.msg})") from None


def iter_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for every non-blank line; one clear error otherwise."""
    try:
        f = open(path, "rb")
    except OSError as e:
        raise _read_problem(path, e) from None
    with f:
        try:
            for lineno, raw in enumerate(f, 1):
                line = _decode(path, raw, lineno)
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputError(f"{path}:{lineno}: malformed JSON ({e.msg})") from None
                if not isinstance(obj, dict):
                    raise InputError(f"{path}:{lineno}: expected a JSON object")
                yield lineno, obj
        except OSError as e:
            raise _read_problem(path, e) from None


def jsonl_blocks(path: str | os.PathLike, size: int) -> Iterator[list[dict]]:
    """The objects of a JSON Lines file, `size` at a time (the last block may be shorter)."""
    objects = (obj for _, obj in iter_jsonl(path))
    while block := list(islice(objects, size)):
        yield block


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    return [obj for _, obj in iter_jsonl(path)]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside `path`; rename it into place only on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_umask())
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except OSError as e:
        if e.filename is None:      # a write refused (a full disk): name the file it was for
            e.filename = str(path)
        raise
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json(path: str | os.PathLike, obj: Any) -> None:
    write_text(path, json.dumps(obj, ensure_ascii=False, indent=1) + "\n")


def write_jsonl(path: str | os.PathLike, rows: Iterable[dict]) -> None:
    """One line a row, written as `rows` yields them (a generator is never held whole)."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def write_npy(path: str | os.PathLike, array: np.ndarray) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            np.save(f, array)
