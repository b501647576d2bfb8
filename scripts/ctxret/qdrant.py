"""Qdrant access: embedded (one client per path at a time, serialised by a file lock) or server."""
from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from .errors import InputError

if TYPE_CHECKING:
    from qdrant_client import QdrantClient


@contextlib.contextmanager
def open_client(path: str | None = None, url: str | None = None,
                api_key_env: str | None = None) -> Iterator["QdrantClient"]:
    from qdrant_client import QdrantClient
    if url:
        client = QdrantClient(url=url, api_key=os.environ.get(api_key_env or "") or None, timeout=10,
                              check_compatibility=False)
        try:
            client.get_collections()
        except Exception as e:  # any transport error: the server is not there
            raise InputError(f"Qdrant server {url} does not answer ({type(e).__name__}: {e})") from None
        try:
            yield client
        finally:
            client.close()
        return
    with path_lock(path):
        client = QdrantClient(path=path)
        try:
            yield client
        finally:
            client.close()


@contextlib.contextmanager
def path_lock(path: str) -> Iterator[None]:
    """An embedded Qdrant path opens in one client at a time: wait for it, across processes."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(f"{path}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
