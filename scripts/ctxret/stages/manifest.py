"""manifest: the sha256 of every output of the run, one line each."""
import os

from ctxret.fileio import sha256_file, write_text
from ctxret.runtime.stage_runner import run_rule


def manifest(input, output, **_) -> None:
    paths = sorted(set(map(str, input)))
    lines = [f"{sha256_file(p)}  {os.path.getsize(p):>12}  {p}\n" for p in paths]
    write_text(output.manifest, "".join(lines))
    print(f"{output.manifest}: {len(lines)} files")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
