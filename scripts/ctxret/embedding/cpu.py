"""The CPU this process runs on: its name and the instruction-set flags that decide which
precision a model can run fast in (bf16 needs bf16 matrix instructions: AVX512-BF16 or AMX;
int8 needs int8 dot-product instructions: AVX512-VNNI, AVX-VNNI or AMX)."""
from __future__ import annotations

import platform
from pathlib import Path

UNITS = {"bf16": {"avx512_bf16", "amx_bf16"}, "int8": {"avx512_vnni", "avx_vnni", "amx_int8"}}
MATRIX_FLAGS = {"avx2", "fma", "avx512f", "amx_tile"} | UNITS["bf16"] | UNITS["int8"]


def cpu() -> dict:
    """{"model": the CPU's name, "flags": its matrix-relevant flags} (Linux; elsewhere no flags)."""
    name, flags = platform.processor() or platform.machine(), set()
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        key, _, value = line.partition(":")
        if key.strip() == "model name":
            name = value.strip()
        elif key.strip() == "flags":
            flags = set(value.split())
            break
    return {"model": name, "flags": sorted(flags & MATRIX_FLAGS)}


def fast_precisions() -> list[str]:
    """The precisions below fp32 this CPU has matrix instructions for: without them bf16 runs far
    slower than fp32 (emulated), and int8 no faster."""
    flags = set(cpu()["flags"])
    return [precision for precision, needs in UNITS.items() if needs & flags]
