"""explorer: every question with its gold and its rank under each condition, one offline page
(results/report/explorer.html; a generated question's set marked so); a question opens to its text, the gold chunk's text and contexts,
and the top 5 of each side of the chosen comparison."""
from ctxret.evaluation.metrics import condition_name, gold_rank, group_members
from ctxret.fileio import iter_jsonl, read_json, read_jsonl, write_text
from ctxret.presentation.explorer_page import explorer_html
from ctxret.presentation.wording import wording
from ctxret.retrieval.runs import read_run
from ctxret.runtime.stage_runner import run_rule

TOP = 5  # the results shown per side


def chunk_label(c: dict) -> str:
    return " — ".join(x for x in (c["title"], c["section"]) if x)


def explorer_data(gold: dict, chunks: dict[str, dict], runs: dict[str, dict[str, list[str]]], pairs: dict,
                  groups: dict[str, list[str]], kinds: dict[str, str], contexts: dict[str, dict[str, str]]) -> dict:
    """The page's data: conditions by index, the compared pairs (primaries first) as indices, every
    scorable question with its ranks and top 5 per condition, and the chunks those name (with their
    contexts by variant); `kinds` names each condition's retriever kind."""
    conditions = list(runs)
    index = {c: i for i, c in enumerate(conditions)}
    compared = list(dict.fromkeys((c["a"], c["b"], c["group"]) for c in pairs["comparisons"]))
    member = {q: [g for g, qids in groups.items() if q in qids] for qids in groups.values() for q in qids}
    used: dict[str, int] = {}

    def ref(cid: str) -> int:
        return used.setdefault(cid, len(used))

    questions = []
    for qid, g in gold.items():
        if not g["gold_chunks"]:
            continue
        ranked = [runs[c].get(qid, []) for c in conditions]
        questions.append({"id": qid, "set": g["set"], "generated": g["generated"], "q": g["question"],
                          "groups": member.get(qid, []),
                          "gold": [ref(cid) for cid in g["gold_chunks"]],
                          "ranks": [gold_rank(r, set(g["gold_chunks"])) for r in ranked],
                          "top": [[ref(cid) for cid in r[:TOP]] for r in ranked]})
    return {"conditions": conditions, "bm25": [kinds[c] == "bm25" for c in conditions],
            "pairs": [{"a": index[a], "b": index[b], "group": g} for a, b, g in compared],
            "ks": sorted({c["k"] for c in pairs["comparisons"]}) or [5], "groups": list(groups),
            "questions": questions,
            "chunks": [{"name": chunks[cid]["name"], "label": chunk_label(chunks[cid]), "text": chunks[cid]["text"],
                        "contexts": {v: by[cid] for v, by in contexts.items() if cid in by}} for cid in used]}


def explorer(input, output, params, **_) -> None:
    t = wording(params.language)
    gold = read_json(input.gold)["questions"]
    chunks = {c["chunk_id"]: c for c in read_jsonl(input.chunks)}
    pairs = read_json(input.pairs)
    runs = {condition_name(r, v): read_run(path, chunks) for (r, v), path in zip(params.conditions, input.runs,
                                                                                  strict=True)}
    kinds = {condition_name(r, v): params.kinds[r] for r, v in params.conditions}
    contexts = {v: {r["chunk_id"]: r["context"] for path in getattr(input, v) for _, r in iter_jsonl(path)}
                for v in params.context_variants}  # an input of its files per context variant
    data = explorer_data(gold, chunks, runs, pairs, group_members(gold, dict(params.groups)), kinds, contexts)
    html = explorer_html(data, t, pairs["title"], params.language)
    write_text(output.html, html)
    print(f"{output.html}: {len(data['questions'])} questions, {len(data['chunks'])} chunks, "
          f"{len(html):,} characters")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
