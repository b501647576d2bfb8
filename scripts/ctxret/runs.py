"""Run files: one line per question `{qid, ids, scores}` plus the TREC run format."""
from __future__ import annotations

from .fileio import read_jsonl, write_jsonl, write_text


def write_run(jsonl_path: str, trec_path: str, name: str, results: dict[str, list[tuple[str, float]]]) -> None:
    write_jsonl(jsonl_path, ({"qid": q, "ids": [c for c, _ in r], "scores": [s for _, s in r]}
                             for q, r in results.items()))
    write_text(trec_path, "".join(f"{q} Q0 {c} {rank} {s:.6f} {name}\n"
                                  for q, r in results.items() for rank, (c, s) in enumerate(r, 1)))


def read_run(path: str) -> dict[str, list[str]]:
    return {r["qid"]: r["ids"] for r in read_jsonl(path)}
