"""judge: a judged question set's relevance (questions.sets.<name>.judge), after the search and
before the score. The pool of every condition's top `depth` chunks is graded 0-3 by contexts.llm,
a call per (query, chunk) pair (by a batch backend, all of them through its batch API:
ctxret.contexts.batches), each answer kept in the store under the backend's identity and the
prompt as asked (the query and the chunk in it), so that a pair is paid once ever. What the pairs
not yet in the store will cost (a batch backend: at its batch prices) is printed before the first
call, and the stage stops there when it is above `max_usd`; a pair whose every attempt fails stops
it after the others (paid, stored), so that no set is scored on a part of its pool. The record
(results/questions/judged-<set>.json) holds every grade, what was paid and, where the set's questions have gold, Cohen's kappa against
it (ctxret.evaluation.judgments)."""
from collections import Counter
from pathlib import Path

import yaml

from ctxret.contexts.batches import Waiting, ask_by_batch
from ctxret.contexts.llm import (
    AttemptFailed,
    ContextFailed,
    backend_spec,
    call_with_retries,
    make_backend,
    priced_model,
)
from ctxret.contexts.prices import batch_prices, load_prices, model_prices, priced
from ctxret.errors import InputError
from ctxret.evaluation.judgments import GRADES, agreement, fill, parse_grade, pool
from ctxret.evaluation.metrics import condition_name
from ctxret.fileio import read_json, read_jsonl, sha256_file, write_json
from ctxret.questions.generation import prompts_in
from ctxret.retrieval.runs import read_run
from ctxret.runtime.stage_runner import run_rule
from ctxret.store import JsonStore, content_key

REPLY_TOKENS = 2   # a digit and the end of the reply, for the estimate


def prompt_for(path: str, language: str) -> dict:
    """The system prompt and the user template in the corpus language's own words, else English's
    naming the language (as generated questions' prompts: questions.generation.prompts_in)."""
    return prompts_in(yaml.safe_load(Path(path).read_text(encoding="utf-8")), language)


def graded(result) -> None:
    """The reply check: a reply that is not one grade is a failed attempt (asked again)."""
    if parse_grade(result.context) is None:
        raise AttemptFailed("malformed", f"not a grade 0-3: {result.context[:60]!r}")


def estimate(asks: list[tuple[str, str]], row: dict) -> float:
    """USD for the calls `asks` (system, user) by a price row, nothing cached, a short reply each."""
    chars = sum(len(system) + len(user) for system, user in asks)
    return priced({"input_tokens": chars / row["chars_per_token"], "output_tokens": REPLY_TOKENS * len(asks),
                   "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}, row)


def ask(backend, prompt: tuple[str, str], chunk: dict, attempts: int, backoff_s: float) -> dict | None:
    """One pair's answer as the store keeps it, or None when every attempt failed."""
    try:
        result, _ = call_with_retries(backend, *prompt, {"slug": chunk["slug"]}, chunk, attempts, backoff_s,
                                      check=graded)
    except ContextFailed as e:
        print(f"  chunk {chunk['chunk_id']}: not judged ({e})")
        return None
    return {"reply": result.context, "usage": result.usage, "cost_usd": result.cost_usd, "model": result.model}


def judge(input, output, params, **_) -> None:
    name, spec, llm = params.set_name, dict(params.judge), dict(params.llm)
    gold = read_json(input.gold)["questions"]
    chunks = {c["chunk_id"]: c for c in read_jsonl(input.chunks)}
    qids = [q for q, g in gold.items() if g["set"] == name]
    runs = [read_run(path, chunks, questions=qids) for path in input.runs]
    pooled = pool(runs, qids, spec["depth"])
    prompt = prompt_for(input.prompt, params.language)
    backend, store = make_backend(llm), JsonStore(params.store, "relevance-judgments")
    asks = {(q, c): (prompt["system"], fill(prompt["user"], gold[q]["question"], chunks[c]))
            for q in qids for c in pooled[q]}
    keys = {pair: content_key(backend=backend.identity(), system=system, user=user)
            for pair, (system, user) in asks.items()}
    stored = {pair: found for pair, key in keys.items() if (found := store.get(key)) is not None}
    todo = [pair for pair in asks if pair not in stored]
    model, table, batch = priced_model(llm), load_prices(input.prices), backend_spec(llm["backend"]).batch
    row = model_prices(table, model)
    usd = estimate([asks[p] for p in todo], batch_prices(row) if batch else row)
    print(f"set {name}: {len(asks)} (query, chunk) pairs pooled from the top {spec['depth']} of "
          f"{len(runs)} conditions for {len(qids)} questions; {len(stored)} judged before (the store), "
          f"{len(todo)} to judge: estimated {usd:.4f} USD by {model}{' (batch prices)' if batch else ''} "
          f"(price table {table['version']})")
    if spec["max_usd"] and usd > spec["max_usd"]:
        raise InputError(f"questions.sets.{name}.judge: judging {len(todo)} pairs is estimated at {usd:.4f} USD, "
                         f"above max_usd {spec['max_usd']}: nothing was paid; raise max_usd or lower depth")
    cost, failed = 0.0, []
    if batch and todo:
        ask_by_batch({keys[p]: (*asks[p], chunks[p[1]]) for p in todo}, backend, params.store, "relevance-judgments",
                     int(params.attempts), Waiting(**params.batch), check=graded)
    for q, c in todo:
        answer = store.get(keys[(q, c)]) if batch else ask(backend, asks[(q, c)], chunks[c], params.attempts,
                                                           params.backoff_s)
        if answer is None:
            failed.append([q, c])
            continue
        if not batch:
            store.put(keys[(q, c)], answer)
        stored[(q, c)] = answer
        cost += answer["cost_usd"] or 0.0
    if failed:   # never scored on a part of the pool; what was paid is in the store
        raise InputError(f"questions.sets.{name}.judge: {len(failed)} pairs not judged after contexts.attempts "
                         f"attempts (first: {failed[0][0]}, chunk {failed[0][1]}); {len(todo) - len(failed)} judged "
                         f"now are kept in the store: run again")
    grades = {q: {c: parse_grade(stored[(q, c)]["reply"]) for c in pooled[q]} for q in qids}
    spread = Counter(g for judged in grades.values() for g in judged.values())
    agreed = agreement(gold, grades)
    record = {"set": name, "depth": spec["depth"], "prompt": {"path": input.prompt, "sha256": sha256_file(input.prompt),
                                                             "language": params.language},
              "backend": backend.identity(), "conditions": [condition_name(r, v) for r, v in params.conditions],
              "questions": len(qids), "pairs": len(asks), "from_store": len(asks) - len(todo), "paid_calls": len(todo),
              "estimate_usd": round(usd, 6), "cost_usd": round(cost, 6),
              "grades_given": {str(g): spread[g] for g in GRADES},
              "without_relevant": [q for q in qids if not any(grades[q].values())],
              "agreement": agreed, "grades": grades}
    write_json(output.judgments, record)
    print(f"  {record['paid_calls']} paid now ({cost:.4f} USD), {record['from_store']} from the store; grades "
          + ", ".join(f"{g}: {n}" for g, n in record["grades_given"].items()))
    print(f"  questions with nothing graded above 0 in the pool (not scored): {len(record['without_relevant'])}")
    if agreed:
        print(f"  against the gold of {agreed['questions']} questions: {agreed['pairs']} pairs, both relevant "
              f"{agreed['both']}, judge only {agreed['judge_only']}, gold only {agreed['gold_only']}, neither "
              f"{agreed['neither']}; Cohen's kappa {agreed['kappa']}")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
