"""preregister: what the run commits to, written by the free stages before any paid call.

`plan` writes the decision rule as configured now (plan.json); `preregister` freezes it with the
corpus's and the questions' hashes, the A1 estimate and its duration, and, per primary, the
power its questions give at the discordance of the nearest free pair (preregistration.md/json).
Its rule reads every input as ancient, so a later edit does not rewrite it: the run's report
compares itself with it (ctxret.planning.kept_to_plan), and only `make preregister` (its two
commands: docs/statistics.md) writes it again.
"""
from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone

from ..fileio import canonical_json, read_json, read_jsonl, sha256_file, sha256_text, write_json, write_text
from ..metrics import Measure
from ..outcomes import group_members, question_outcomes
from ..paired import LLM_VARIANT
from ..planning import committed_rule, duration_hours, plan_power, planning_side, question_hashes
from ..presentation.pages import plan_sentence, preregistration_markdown
from ..runs import read_run
from ..stats import paired_counts
from ..presentation.wording import wording


def run_plan(input, output, params, resources, **_) -> None:
    """plan.json: the decision rule and the planning settings, resolved by the workflow, the A1
    documents in flight (a resource of the run, not a setting: changing it reruns nothing) and the
    precision each model slot embeds at (precision.json, settled once for the run)."""
    plan = {**params.plan, "workers": int(resources.llm_workers_planned), "precision": read_json(input.precision)}
    write_json(output.json, plan)
    print(f"plan: {len(plan['primary'])} primary comparisons, {len(plan['secondary_comparisons'])} "
          f"secondary pairs of conditions, alpha {plan['alpha']}, seed {plan['seed']}")


def corpus_record(corpus: dict, files: list[str], docs: int, chunks: int) -> dict:
    """The corpus as read: its files' sha256 (and one over all of them), documents and chunks."""
    hashed = [{"path": p, "sha256": sha256_file(p)} for p in files]
    return {"format": corpus["format"], "path": corpus["path"], "files": hashed,
            "sha256": hashed[0]["sha256"] if len(hashed) == 1 else sha256_text(canonical_json(hashed)),
            "documents": docs, "chunks": chunks}


def planned_primaries(plan: dict, runs: dict[str, str], gold: dict, chunks: dict[str, dict]) -> list[dict]:
    """Per primary: its nearest free pair and the power figures at that pair's discordance."""
    slug_of = {cid: c["slug"] for cid, c in chunks.items()}
    groups = group_members(gold, plan["groups"])
    hits: dict[tuple[str, int], dict] = {}
    out = []
    for p in plan["primary"]:
        a, b = (planning_side(p[s], LLM_VARIANT, plan["fallback_variant"]) for s in ("a", "b"))
        qids, hit = groups[p["group"]], Measure("Success", p["k"])
        missing = [c for c in (a, b) if c not in runs]
        if missing:                      # said in the preregistration; the run goes on
            out.append({"a": p["a"], "b": p["b"], "group": p["group"], "k": p["k"], "N": len(qids),
                        "planning": None, "missing": missing[0]})
            continue
        for c in (a, b):
            if (c, p["k"]) not in hits:
                hits[c, p["k"]] = question_outcomes(read_run(runs[c], chunks, questions=gold), gold, slug_of, [hit])
        hit_a, hit_b = ([hits[c, p["k"]][q][hit.name] for q in qids] for c in (a, b))
        counts = paired_counts(hit_a, hit_b)
        out.append({"a": p["a"], "b": p["b"], "group": p["group"], "k": p["k"], "planning": {"a": a, "b": b},
                    "counts": counts, "observed_diff": (sum(hit_a) - sum(hit_b)) / len(qids) if qids else 0.0,
                    **plan_power(len(qids), counts["only_a"] + counts["only_b"], plan["planning_diffs"],
                                 plan["alpha"], plan["power"])})
    return out


def family_size(plan: dict, groups: dict[str, list[str]]) -> int:
    """The secondary comparisons pairs will make: pairs x groups with questions x ks, primaries out."""
    declared = {(p["a"], p["b"], p["group"], p["k"]) for p in plan["primary"]}
    return sum((a, b, g, k) not in declared for a, b in plan["secondary_comparisons"]
               for g, qids in groups.items() if qids for k in plan["secondary"]["ks"])


def run(input, output, params, **_) -> None:
    plan = read_json(input.plan)
    t = wording(plan["language"])
    gold = read_json(input.gold)["questions"]
    chunks = read_jsonl(input.chunks)
    by_id = {c["chunk_id"]: c for c in chunks}
    estimate = read_json(input.estimate[0]) if input.estimate else None
    calls = list(Counter(c["slug"] for c in chunks).values())  # per document, in corpus order
    sets = read_json(input.sets)
    prereg = {
        "written": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "plan": plan, "committed": committed_rule(plan),
        "corpus": corpus_record(plan["corpus"], plan["corpus_files"], len(read_jsonl(input.docs)), len(chunks)),
        "chunks_sha256": sha256_file(input.chunks),
        "question_files": [{"set": name, "questions": sum(r["kinds"].values()), **r} for name, r in sets.items()],
        "questions": question_hashes(read_jsonl(input.questions)),
        "secondary_family": family_size(plan, group_members(gold, plan["groups"])),
        "estimate": estimate,
        "duration_hours": duration_hours(calls, plan["seconds_per_call"], plan["workers"]),
        "primaries": planned_primaries(plan, dict(zip(plan["free_conditions"], input.runs, strict=True)), gold,
                                       by_id),
    }
    write_json(output.json, prereg)
    write_text(output.md, preregistration_markdown(prereg, t))
    for p in prereg["primaries"]:
        said = t["plan_missing"].format(c=p["missing"]) if p["planning"] is None else plan_sentence(p, t)
        print(f"{p['a']} vs {p['b']}: {said}")
