"""One chunk's context record, as the backend answered it:

    python -m ctxret.contexts.show results/ctx/A1 01556
"""
import json
import sys
from pathlib import Path

from ctxret.errors import InputError
from ctxret.fileio import read_jsonl


def record(variant_dir: str, chunk_id: str) -> dict:
    """The record of one chunk among `<variant_dir>/docs/*.jsonl`."""
    for path in sorted(Path(variant_dir, "docs").glob("*.jsonl")):
        for rec in read_jsonl(path):
            if rec["chunk_id"] == chunk_id:
                return rec
    raise InputError(f"{variant_dir}/docs: no chunk {chunk_id!r}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m ctxret.contexts.show results/ctx/<variant> <chunk id>")
    try:
        print(json.dumps(record(*sys.argv[1:]), ensure_ascii=False, indent=1))
    except InputError as e:
        sys.exit(f"error: {e}")
