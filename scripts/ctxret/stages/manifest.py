"""manifest: the sha256 of every output of the run, one line each."""
from __future__ import annotations

import os

from ..fileio import sha256_file, write_text


def run(input, output, **_) -> None:
    paths = sorted(set(map(str, input)))
    lines = [f"{sha256_file(p)}  {os.path.getsize(p):>12}  {p}\n" for p in paths]
    write_text(output.manifest, "".join(lines))
    print(f"{output.manifest}: {len(lines)} files")
