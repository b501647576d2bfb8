"""score: failure rate@k, recall@k, doc recall, MRR per condition and question group."""
from __future__ import annotations

import numpy as np

from .fileio import read_json, read_jsonl, write_json, write_text
from .outcomes import Condition, group_members, question_outcomes
from .runs import read_run


def summarise(outcomes: dict[str, dict], qids: list[str], ks: list[int]) -> dict:
    n = len(qids)
    rows = [outcomes[q] for q in qids]
    out = {"N": n}
    for k in ks:
        fails = sum(1 for r in rows if not r[f"hit@{k}"])
        out[f"fail@{k}"] = {"n": fails, "rate": fails / n if n else None}
        out[f"recall@{k}"] = float(np.mean([r[f"recall@{k}"] for r in rows])) if n else None
    out["doc_recall"] = {"n": sum(1 for r in rows if r["doc_hit"]), "N": n}
    out["mrr"] = float(np.mean([r["rr"] for r in rows])) if n else None
    return out


def table(results: list[dict], ks: list[int], mrr_k: int, doc_k: int) -> str:
    head = (["condition", "group", "N"] + [f"fail@{k}" for k in ks]
            + [f"doc recall@{doc_k}", f"MRR@{mrr_k}"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        s = r["summary"]
        cells = [r["condition"], r["group"], str(s["N"])]
        cells += [f"{s[f'fail@{k}']['n']}/{s['N']} ({s[f'fail@{k}']['rate']:.3f})" for k in ks]
        cells += [f"{s['doc_recall']['n']}/{s['N']}", f"{s['mrr']:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(input, output, params, **_) -> None:
    gold = read_json(input.gold)["questions"]
    slug_of = {c["chunk_id"]: c["slug"] for c in read_jsonl(input.chunks)}
    ks, mrr_k, doc_k = list(params.ks), int(params.mrr_k), int(params.doc_k)
    groups = group_members(gold, dict(params.groups))
    results = []
    for (retriever, variant), path in zip(params.conditions, input.runs):
        cond = Condition(retriever, variant)
        outcomes = question_outcomes(read_run(path), gold, slug_of, ks, mrr_k, doc_k)
        for group, qids in groups.items():
            if qids:
                results.append({"condition": cond.name, "retriever": retriever, "variant": variant,
                                "group": group, "summary": summarise(outcomes, qids, ks)})
    md = table(results, ks, mrr_k, doc_k)
    write_json(output.json, {"ks": ks, "mrr_k": mrr_k, "doc_k": doc_k, "results": results})
    write_text(output.md, "# Score\n\nfail@k: the gold chunk is not in the top k.\n\n" + md + "\n")
    print(md)
