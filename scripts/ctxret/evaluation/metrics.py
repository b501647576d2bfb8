"""Retrieval measures: pure functions over ranked ids and gold, and their registry.

A question's gold is a list of units (a passage, a chunk, a document), each satisfied by any of
its chunks; `gold` below is the union of those chunks.

A measure is named as ir_measures names it (`nDCG@10`, `RR@10`; `doc nDCG@10` on the document
runs) and parsed once into a `Measure`; `MEASURES` holds each family's per-question function,
the levels it is read at and the score.json keys it is summarised under. The measures a run
reports come from the config's score section (`configured`, `reported`). A new measure is its
function, a line in `MEASURES` and its test; `score.measures` then names it with its cut-off.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, NamedTuple, Sequence

import numpy as np

from ctxret.errors import InputError


def hit_at(ranked: Sequence[str], gold: set[str], k: int) -> bool:
    """Any gold chunk in the top k (its absence is a failure@k)."""
    return any(cid in gold for cid in ranked[:k])


def recall_at(ranked: Sequence[str], units: Sequence[set[str]], k: int) -> float:
    """Share of gold units with a chunk in the top k: the cookbook's Pass@k (a unit per gold chunk),
    AutoRAG's retrieval recall (a unit per group of gold ids, any member satisfying it)."""
    top = set(ranked[:k])
    return sum(1 for chunks in units if chunks & top) / len(units) if units else 0.0


def doc_hit_at(ranked_slugs: Sequence[str], gold_slugs: set[str], k: int) -> bool:
    """Any chunk of a gold document in the top k."""
    return any(s in gold_slugs for s in ranked_slugs[:k])


def reciprocal_rank(ranked: Sequence[str], gold: set[str], k: int) -> float:
    for rank, cid in enumerate(ranked[:k], 1):
        if cid in gold:
            return 1.0 / rank
    return 0.0


def gold_rank(ranked: Sequence[str], gold: set[str]) -> int | None:
    """1-based rank of the first gold chunk in the run, or None."""
    for rank, cid in enumerate(ranked, 1):
        if cid in gold:
            return rank
    return None


def ndcg_at(ranked: Sequence[str], grades: dict[str, int], k: int) -> float:
    """nDCG@k with linear gains (trec_eval's ndcg_cut, ir_measures' nDCG@k): the DCG of the top
    k over the DCG of the best possible order of every judged item; `grades` id -> grade."""
    dcg = sum(grades.get(cid, 0) / math.log2(i + 2) for i, cid in enumerate(ranked[:k]))
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best else 0.0


def judged_recall_at(ranked: Sequence[str], grades: dict[str, int], k: int) -> float:
    """R@k as trec_eval counts it: the share of the judged relevant items (grade > 0) in the top k."""
    relevant = {cid for cid, g in grades.items() if g > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def precision_at(ranked: Sequence[str], grades: dict[str, int], k: int) -> float:
    """P@k as trec_eval counts it: the judged relevant items (grade > 0) in the top k, over k."""
    return sum(1 for cid in ranked[:k] if grades.get(cid, 0) > 0) / k


def document_ranking(ranked: Sequence[str], slug_of: dict[str, str]) -> list[str]:
    """A chunk run as a document run (max-passage): each document at the rank of its best chunk."""
    return list(dict.fromkeys(slug_of[cid] for cid in ranked))


@dataclass(frozen=True)
class Judged:
    """One question at one level: the ranked ids, the gold ones (any of them a hit) and the judged
    grades; at chunk level also the gold units and, per ranked chunk, its document (`docs`)."""
    ranked: Sequence[str]
    gold: set[str]
    grades: dict[str, int]
    units: Sequence[set[str]] = ()
    docs: Sequence[str] = ()
    gold_docs: frozenset[str] = frozenset()


class Figure(NamedTuple):
    """One entry of a group's summary: its score.json key, its value (a mean, or {n, N, rate} of
    questions counted) and the questions counted, if any (the parquet table's n)."""
    key: str
    value: float | dict
    n: int | None = None


def means(values: list, keys: tuple[str, ...]) -> list[Figure]:
    """The mean over the questions, under each key."""
    mean = float(np.mean(values))
    return [Figure(key, mean) for key in keys]


def failures(values: list, keys: tuple[str, ...]) -> list[Figure]:
    """The questions without a hit, counted (failure rate), then the hit rate."""
    n, fails = len(values), sum(1 for v in values if not v)
    return [Figure(keys[0], {"n": fails, "N": n, "rate": fails / n}, fails), Figure(keys[1], 1 - fails / n, n - fails)]


def hits(values: list, keys: tuple[str, ...]) -> list[Figure]:
    """The questions with a hit, counted."""
    n, found = len(values), sum(1 for v in values if v)
    return [Figure(keys[0], {"n": found, "N": n, "rate": found / n}, found)]


@dataclass(frozen=True)
class Family:
    """A measure without its cut-off: one question's value at k, the levels it is read at, the
    score.json keys a group's values are summarised under (`{k}`, `{name}` filled in) and how,
    and, for a family summarised without its k, the one setting that gives its cut-off."""
    score: Callable[[Judged, int], float | bool]
    levels: tuple[str, ...] = ("chunk", "doc")
    keys: tuple[str, ...] = ("{name}",)
    summarise: Callable[[list, tuple[str, ...]], list[Figure]] = means
    setting: str = ""


CHUNK = ("chunk",)
# Named as ir_measures names them; the first four keep the keys score.json has always had.
MEASURES = {
    "Success": Family(lambda j, k: hit_at(j.ranked, j.gold, k), CHUNK, ("fail@{k}", "hit@{k}"), failures),
    "Pass": Family(lambda j, k: recall_at(j.ranked, j.units, k), CHUNK, ("recall@{k}", "pass@{k}")),
    "DocSuccess": Family(lambda j, k: doc_hit_at(j.docs, j.gold_docs, k), CHUNK, ("doc_recall",), hits, "score.doc_k"),
    "RR": Family(lambda j, k: reciprocal_rank(j.ranked, j.gold, k), CHUNK, ("mrr",), setting="score.mrr_k"),
    "nDCG": Family(lambda j, k: ndcg_at(j.ranked, j.grades, k)),
    "R": Family(lambda j, k: judged_recall_at(j.ranked, j.grades, k)),
    "P": Family(lambda j, k: precision_at(j.ranked, j.grades, k)),
}
NAME = re.compile(r"(doc )?([A-Za-z]+)@([1-9][0-9]*)")


@dataclass(frozen=True)
class Measure:
    family: str
    k: int
    level: str = "chunk"

    @property
    def name(self) -> str:
        return f"{'doc ' if self.level == 'doc' else ''}{self.family}@{self.k}"

    @property
    def keys(self) -> tuple[str, ...]:
        """Its figures' keys in a group's summary (score.json)."""
        return tuple(key.format(k=self.k, name=self.name) for key in MEASURES[self.family].keys)

    def score(self, judged: Judged) -> float | bool:
        return MEASURES[self.family].score(judged, self.k)

    def summarise(self, values: list) -> list[Figure]:
        return MEASURES[self.family].summarise(values, self.keys)


def parse(name: str) -> Measure:
    """`nDCG@10` -> Measure("nDCG", 10); `doc nDCG@10` at document level."""
    match = NAME.fullmatch(name)
    if not match or match[2] not in MEASURES:
        raise InputError(f"{name!r} is not a measure: write <family>@<k>, optionally after 'doc ', with a family "
                         f"among {', '.join(MEASURES)}")
    level = "doc" if match[1] else "chunk"
    if level not in MEASURES[match[2]].levels:
        raise InputError(f"{name!r}: {match[2]} is read at chunk level only")
    return Measure(match[2], int(match[3]), level)


def cutoffs(score: dict, top_k: int) -> dict:
    """The score section's cut-offs; r_k None when the runs, search.top_k deep, do not reach it."""
    return {**{key: score[key] for key in ("ks", "mrr_k", "doc_k", "ndcg_k")},
            "r_k": score["r_k"] if score["r_k"] and top_k >= score["r_k"] else None}


def configured(score: dict, top_k: int) -> dict:
    """What score.json records of the config's score section: its cut-offs and, when there are
    any, the extra measures' names (score.measures), checked."""
    problems = measure_problems(score, top_k)
    if problems:
        raise InputError(f"config {problems[0][0]}: {problems[0][1]}")
    return {**cutoffs(score, top_k), **({"measures": list(score["measures"])} if score.get("measures") else {})}


def reported(record: dict) -> list[Measure]:
    """The measures of a run in the order of its summary, from `configured`'s record (or
    score.json, which holds it): per k of ks hit and Pass, doc hit, RR, nDCG and R at both levels,
    then the extra ones."""
    out = [Measure(family, k) for k in record["ks"] for family in ("Success", "Pass")]
    out += [Measure("DocSuccess", record["doc_k"]), Measure("RR", record["mrr_k"])]
    out += [Measure(family, record[key], level) for family, key in (("nDCG", "ndcg_k"), ("R", "r_k"))
            if record[key] for level in ("chunk", "doc")]
    return out + [parse(name) for name in record.get("measures", [])]


def measure_problems(score: dict, top_k: int) -> list[tuple[str, str]]:
    """The extra measures (score.measures) that cannot be reported, as (dotted key, what is wrong)."""
    taken = {m.name for m in reported(cutoffs(score, top_k))}
    problems = []
    for i, name in enumerate(score.get("measures", [])):
        try:
            m = parse(name)
        except InputError as e:
            problems.append((f"score.measures.{i}", str(e)))
            continue
        family = MEASURES[m.family]
        if family.setting:
            problems.append((f"score.measures.{i}", f"{name!r}: {m.family} is reported once, at {family.setting}"))
        elif m.name in taken:
            problems.append((f"score.measures.{i}", f"{name!r} is reported already"))
        elif m.k > top_k:
            problems.append((f"score.measures.{i}", f"{name!r}: {m.k} is beyond search.top_k ({top_k}): the runs "
                                                    f"hold {top_k} chunks a question"))
        taken.add(m.name)
    return problems


# A condition's outcomes per question (retriever x variant, against the gold chunks)

def condition_name(retriever: str, variant: str) -> str:
    """A condition's name, as runs, score.json and pairs.primary write it: `<retriever>:<variant>`."""
    return f"{retriever}:{variant}"


def chunk_grades(g: dict) -> dict[str, int]:
    """A question's judged chunks: each gold unit's chunks at the unit's grade (the best of
    several units), as in runs/qrels.txt; a judged set's question also its pooled chunks graded 0
    (`judged`: ctxret.evaluation.judgments)."""
    grades: dict[str, int] = dict.fromkeys(g.get("judged", ()) if g["gold_chunks"] else (), 0)
    for u in g["units"] if g["gold_chunks"] else []:
        for c in u["chunks"]:
            grades[c] = max(grades.get(c, 0), u["grade"])
    return grades


def doc_grades(judged: dict[str, int], slug_of: dict[str, str]) -> dict[str, int]:
    """A question's judged documents from its judged chunks: each document holding one, at the
    best grade among them (runs/doc/qrels.txt)."""
    grades: dict[str, int] = {}
    for cid, grade in judged.items():
        grades[slug_of[cid]] = max(grades.get(slug_of[cid], 0), grade)
    return grades


def question_outcomes(run: dict[str, list[str]], gold: dict[str, dict], slug_of: dict[str, str],
                      measures: list[Measure]) -> dict[str, dict]:
    """{qid: {rank, and each measure by its name}} for every question with a gold chunk; a
    document-level measure reads the document run (a document at the rank of its best chunk)."""
    out = {}
    for qid, g in gold.items():
        if not g["gold_chunks"]:
            continue
        ranked = run.get(qid, [])
        gold_ids, grades = set(g["gold_chunks"]), chunk_grades(g)
        by_doc = doc_grades(grades, slug_of)
        levels = {"chunk": Judged(ranked, gold_ids, grades, [set(u["chunks"]) for u in g["units"]],
                                          [slug_of[c] for c in ranked], frozenset(g["gold_slugs"])),
                  "doc": Judged(document_ranking(ranked, slug_of),
                                        {d for d, grade in by_doc.items() if grade > 0}, by_doc)}
        out[qid] = {"rank": gold_rank(ranked, gold_ids), **{m.name: m.score(levels[m.level]) for m in measures}}
    return out


def group_members(gold: dict[str, dict], groups: dict[str, list[str]]) -> dict[str, list[str]]:
    """Question ids per reporting group (e.g. HP = H + P), keeping only scorable questions."""
    return {name: [q for q, g in gold.items() if g["set"] in sets and g["gold_chunks"]]
            for name, sets in groups.items()}
