"""The CPU this process runs on: its name and the instruction-set flags that decide which
precision a model can run fast in (bf16 needs bf16 matrix instructions: AVX512-BF16 or AMX)."""
from __future__ import annotations

import platform
from pathlib import Path

BF16_FLAGS = {"avx512_bf16", "amx_bf16"}
MATRIX_FLAGS = {"avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "amx_tile", "amx_int8"} | BF16_FLAGS


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


def bf16_units() -> bool:
    """Whether this CPU has bf16 matrix instructions: without them torch runs bf16 far slower than fp32."""
    return bool(BF16_FLAGS & set(cpu()["flags"]))
