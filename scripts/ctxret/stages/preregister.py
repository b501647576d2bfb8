"""preregister: what the run commits to, written by the free stages before any paid call.

`preregister_plan` writes the decision rule as configured now (plan.json); `preregister` freezes it with the
corpus's and the questions' hashes, each paid variant's estimate and their duration, and, per primary, the
power its questions give at the discordance of the nearest free pair (preregistration.md/json).
Its rule reads every input as ancient, so a later edit does not rewrite it: the run's report
compares itself with it (ctxret.evaluation.preregistration.kept_to_plan), and only `make preregister` (its two
commands: docs/statistics.md) writes it again.
"""
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import yaml

from ctxret.contexts.prices import generation_cost
from ctxret.evaluation.metrics import Measure, group_members, parse, question_outcomes
from ctxret.evaluation.paired import LLM_VARIANT
from ctxret.evaluation.preregistration import (committed_rule, duration_hours, needed_for_effect, plan_power,
                                               planning_side, question_hashes)
from ctxret.evaluation.stats import design_effect, paired_counts
from ctxret.fileio import canonical_json, read_json, read_jsonl, sha256_file, sha256_text, write_json, write_text
from ctxret.presentation.pages import effect_lines, plan_sentence, preregistration_markdown, unplanned_sentence
from ctxret.presentation.wording import wording
from ctxret.questions.generation import REPLY_TOKENS, prompt_chars
from ctxret.questions.sets import cluster_of
from ctxret.retrieval.runs import read_run
from ctxret.runtime.stage_runner import run_rule


def preregister_plan(input, output, params, resources, **_) -> None:
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


def paid_sides(plan: dict) -> list[str]:
    """The variants a planning pair replaces by the fallback: A1 and every paid named variant."""
    return [LLM_VARIANT, *plan["paid_variants"]]


def planned_primaries(plan: dict, runs: dict[str, str], gold: dict, chunks: dict[str, dict]) -> list[dict]:
    """Per primary: its nearest free pair and the power figures at that pair's discordance."""
    slug_of = {cid: c["slug"] for cid, c in chunks.items()}
    groups = group_members(gold, plan["groups"])
    hits: dict[tuple[str, int], dict] = {}
    out = []
    for p in plan["primary"]:
        a, b = (planning_side(p[s], paid_sides(plan), plan["fallback_variant"]) for s in ("a", "b"))
        qids, hit = groups[p["group"]], Measure("Success", p["k"])
        missing = [c for c in (a, b) if c not in runs]
        if missing or a == b:            # said in the preregistration; the run goes on
            out.append({"a": p["a"], "b": p["b"], "group": p["group"], "k": p["k"], "N": len(qids),
                        "planning": None, **({"missing": missing[0]} if missing else {"no_pilot": a})})
            continue
        for c in (a, b):
            if (c, p["k"]) not in hits:
                hits[c, p["k"]] = question_outcomes(read_run(runs[c], chunks, questions=gold), gold, slug_of, [hit])
        hit_a, hit_b = ([hits[c, p["k"]][q][hit.name] for q in qids] for c in (a, b))
        counts = paired_counts(hit_a, hit_b)
        # the pilot's design effect: its paired failure differences in the bootstrap's clusters
        design = design_effect([float(x) - float(y) for x, y in zip(hit_a, hit_b)],
                               [cluster_of({"id": q, **gold[q]}, plan["cluster_key"]) for q in qids]) if qids else None
        margin = (plan.get("equivalence_margin") or {}).get(f"fail@{p['k']}")
        out.append({"a": p["a"], "b": p["b"], "group": p["group"], "k": p["k"], "planning": {"a": a, "b": b},
                    "counts": counts, "observed_diff": (sum(hit_a) - sum(hit_b)) / len(qids) if qids else 0.0,
                    **plan_power(len(qids), counts["only_a"] + counts["only_b"], plan["planning_diffs"],
                                 plan["alpha"], plan["power"], design, margin)})
    return out


def effect_plan(plan: dict, runs: dict[str, str], gold: dict, chunks: dict[str, dict], prompts: str) -> dict | None:
    """The questions each candidate measure needs for pairs.smallest_effect, from the first
    primary's planning pair (its free runs: the pilot), and what generating that many would cost
    by contexts.llm's price row (plan.json holds it), each measure's and the most's; None without
    a planning pair."""
    slug_of = {cid: c["slug"] for cid, c in chunks.items()}
    for p in plan["primary"]:
        a, b = (planning_side(p[s], paid_sides(plan), plan["fallback_variant"]) for s in ("a", "b"))
        qids = group_members(gold, plan["groups"])[p["group"]]
        if a not in runs or b not in runs or a == b or not qids:
            continue
        measures = {"failure@5": Measure("Success", 5), "MRR@10": parse("RR@10"), "nDCG@10": parse("nDCG@10")}
        outcomes = [question_outcomes(read_run(runs[c], chunks, questions=gold), gold, slug_of, list(measures.values()))
                    for c in (a, b)]
        pilot = {name: tuple([o[q][m.name] for q in qids] for o in outcomes) for name, m in measures.items()}
        needed = needed_for_effect(pilot, plan["smallest_effect"], plan["alpha"], plan["power"], plan["seed"])
        most = max((n["needed"] for n in needed.values() if n["needed"]), default=None)
        cost = None
        if plan["generation_model"]:
            chars = prompt_chars(yaml.safe_load(Path(prompts).read_text(encoding="utf-8")),
                                 plan["corpus_language"]["language"], list(chunks.values()))
            for m in needed.values():
                m["generation"] = generation_cost(m["needed"], chars, REPLY_TOKENS, plan["generation_prices"]) \
                    if m["needed"] else None
            if most:
                cost = {"model": plan["generation_model"],
                        **generation_cost(most, chars, REPLY_TOKENS, plan["generation_prices"])}
        return {"effect": plan["smallest_effect"], "pilot": {"a": a, "b": b, "group": p["group"], "N": len(qids)},
                "measures": needed, "most": most, "generation": cost}
    return None


def preregister_effect(input, output, params, **_) -> None:
    """smallest-effect.json (read by preregister, and by a generated set with n: auto): effect_plan
    on the human questions only (a generated set is not its own pilot: the figure that sets its n
    stays the same once it is written)."""
    plan = read_json(input.plan)
    generated = set(params.generated_sets)
    gold = {q: g for q, g in read_json(input.gold)["questions"].items() if g["set"] not in generated}
    effect = effect_plan(plan, dict(zip(plan["free_conditions"], input.runs, strict=True)), gold,
                         {c["chunk_id"]: c for c in read_jsonl(input.chunks)}, input.question_prompts)
    write_json(output.json, effect)
    for line in effect_lines({"smallest_effect": effect, "plan": plan}, wording(plan["language"])):
        if line:
            print(line)


def family_size(plan: dict, groups: dict[str, list[str]]) -> int:
    """The secondary comparisons pairs will make: pairs x groups with questions x ks, primaries out."""
    declared = {(p["a"], p["b"], p["group"], p["k"]) for p in plan["primary"]}
    return sum((a, b, g, k) not in declared for a, b in plan["secondary_comparisons"]
               for g, qids in groups.items() if qids for k in plan["secondary"]["ks"])


def preregister(input, output, params, **_) -> None:
    plan = read_json(input.plan)
    t = wording(plan["language"])
    gold = read_json(input.gold)["questions"]
    chunks = read_jsonl(input.chunks)
    by_id = {c["chunk_id"]: c for c in chunks}
    estimates = {v: read_json(path) for v, path in zip(plan["paid_variants"], input.estimates, strict=True)}
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
        "estimates": estimates,
        "embed_time": read_json(input.embed_time),
        # every paid variant's documents, one after another's
        "duration_hours": duration_hours(calls * len(estimates), plan["seconds_per_call"], plan["workers"]),
        "primaries": planned_primaries(plan, dict(zip(plan["free_conditions"], input.runs, strict=True)), gold,
                                       by_id),
        "smallest_effect": read_json(input.effect),
    }
    write_json(output.json, prereg)
    write_text(output.md, preregistration_markdown(prereg, t))
    for p in prereg["primaries"]:
        said = unplanned_sentence(p, t) if p["planning"] is None else plan_sentence(p, t)
        print(f"{p['a']} vs {p['b']}: {said}")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
