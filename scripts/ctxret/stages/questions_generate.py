"""questions_generate: a generated question set (questions.sets.<name>.generate), written by an
LLM from chunks sampled across the corpus (`make generate-questions`, before `make run`), one call
at a time or, by a batch backend, through its batch API (ctxret.contexts.batches). Each answer is
kept in the store under the backend's identity, the prompt, the chunk's text and the kind, so that
a rerun pays nothing; the filters and their counts are ctxret.questions.generation's. n is the
questions kept: with n: auto, the free pilot's questions needed (smallest-effect.json, as the
preregistration states it); n, fixed or auto, is priced (a batch backend at its batch prices) and
cut to what max_usd buys before any call, then asked in rounds until n are kept; the sample is
prefix-stable, so each round asks only new (chunk, kind, take)s, a take past the first asking for
a question other than the pair's earlier takes'."""
from collections import Counter
from pathlib import Path

import numpy as np
import yaml

from ctxret.contexts.batches import Waiting, ask_by_batch
from ctxret.contexts.llm import ContextFailed, backend_spec, call_with_retries, make_backend
from ctxret.contexts.prices import generation_cost
from ctxret.errors import InputError
from ctxret.embedding.precision import settled
from ctxret.embedding.vectors import embed_texts
from ctxret.fileio import read_json, read_jsonl, write_json, write_jsonl
from ctxret.questions.generation import (
    REASONS,
    REPLY_TOKENS,
    auto_questions,
    fixed_questions,
    near_duplicates,
    next_round,
    parse_reply,
    prompt_chars,
    prompts_in,
    sample_chunks,
    screen,
    user_prompt,
)
from ctxret.runtime.stage_runner import run_rule
from ctxret.store import JsonStore, content_key


def reply_key(backend, system: str, user: str, chunk: dict, kind: str) -> str:
    """An answer's store key: the same online and by batch when the backend's identity is (anthropic
    and anthropic-batch, openai and openai-batch)."""
    return content_key(backend=backend.identity(), system=system, user=user, chunk=chunk["text"], kind=kind)


def replies(backend, store: JsonStore, asks: list[tuple[str, str, dict, str]], params,
            batch: bool) -> list[tuple[str, bool, float]]:
    """ask's triple for each (system, user, chunk, kind): one call at a time, or the ones the store
    lacks in one batch run (ctxret.contexts.batches; a request left unanswered is an empty reply,
    asked again by the next run)."""
    if not batch:
        return [ask(backend, store, *a, params.attempts, params.backoff_s) for a in asks]
    keys = [reply_key(backend, *a) for a in asks]
    todo = {k: a[:3] for k, a in zip(keys, asks) if store.get(k) is None}
    if todo:
        ask_by_batch(todo, backend, params.store, "generated-questions", int(params.attempts),
                     Waiting(**params.batch))
    out = []
    for k, (_, _, chunk, kind) in zip(keys, asks):
        found = store.get(k) or {}
        if not found:
            print(f"  chunk {chunk['chunk_id']} ({kind}): no answer after {params.attempts} requests")
        out.append((found.get("reply", ""), k in todo, (found.get("cost_usd") or 0.0) if k in todo else 0.0))
    return out


def ask(backend, store: JsonStore, system: str, user: str, chunk: dict, kind: str, attempts: int,
        backoff_s: float) -> tuple[str, bool, float]:
    """(the reply, whether it was paid now, its cost in USD when the service reports it): from the
    store when asked before."""
    key = reply_key(backend, system, user, chunk, kind)
    stored = store.get(key)
    if stored is not None:
        return stored["reply"], False, 0.0
    try:
        result, _ = call_with_retries(backend, system, user, {"slug": chunk["slug"]}, chunk, attempts, backoff_s)
    except ContextFailed as e:
        print(f"  chunk {chunk['chunk_id']} ({kind}): {e}")
        return "", True, 0.0
    store.put(key, {"reply": result.context, "usage": result.usage, "cost_usd": result.cost_usd,
                    "model": result.model})
    return result.context, True, result.cost_usd or 0.0


def auto_line(auto: dict) -> str:
    """What n: auto took: the pilot's figure, its price, and whether the budget stops short."""
    p = auto["pilot"]
    head = (f"n: auto: the free pilot ({p['a']} vs {p['b']} on {p['group']}, {p['N']} questions) says "
            f"{auto['measure']} needs {auto['needed']:,} questions for a difference of {auto['effect']:g}; "
            f"generating them costs ${auto['cost_usd']:,.2f} {auto['via']}")
    if auto["short"]:
        return (f"{head}, over max_usd {auto['max_usd']:g}: the budget stops short, asking {auto['n']:,} of the "
                f"{auto['needed']:,}")
    return f"{head} (max_usd {auto['max_usd']:g}): asking {auto['n']:,}"


def question_vectors(questions: list[str], input, params, threads: int) -> np.ndarray | None:
    """The questions' vectors by the run's first model slot (`dense_slot`) as the embed stage makes
    them (its query prefix, the run's precision, the store); None without a model slot."""
    if not params.dense_slot or not questions:
        return None
    settings = {**dict(params.dense_settings), "precision": settled(input.precision, params.dense_slot)["precision"]}
    return embed_texts(questions, "query", settings, params.store, threads, int(params.flush_every),
                       bool(params.offline))[0]


def fixed_line(fixed: dict) -> str:
    """What a fixed n costs, and whether the budget stops short (as auto_line says it)."""
    head = f"n: {fixed['n']:,}: generating them costs ${fixed['cost_usd']:,.2f} {fixed['via']}"
    if fixed["short"]:
        return (f"{head}, over max_usd {fixed['max_usd']:g}: the budget stops short, asking {fixed['asked']:,} of "
                f"the {fixed['n']:,}")
    return f"{head} (max_usd {fixed['max_usd']:g}): asking {fixed['asked']:,}"


def kept_of(candidates: list[dict], spec: dict, input, params, threads: int) -> tuple[list[dict], Counter, str]:
    """The candidates every filter keeps, in sample order (near-duplicates across rounds too), the
    count dropped for each reason, and the near-duplicate rule as the log names it."""
    kept, dropped = screen(candidates, params.language, spec["overlap_cap"], spec["quote_chars"])
    vectors = question_vectors([k["question"] for k in kept], input, params, threads)
    near_rule = (f"by {params.dense_slot} cosine ≥ {spec['duplicate_cosine']:g}" if params.dense_slot else
                 f"by character-trigram Jaccard ≥ {spec['duplicate_similarity']:g}: no model slot to embed with")
    near = near_duplicates([k["question"] for k in kept], vectors, spec["duplicate_cosine"],
                           spec["duplicate_similarity"])
    dropped[REASONS[-1]] = sum(near)
    return [k for k, n in zip(kept, near) if not n], dropped, near_rule


def questions_generate(input, output, params, threads=1, **_) -> None:
    """One generated set: asked in rounds until n are kept (each answer paid once ever), the
    filters, the set."""
    spec, name = dict(params.spec), params.set_name
    key = f"questions.sets.{name}.generate.n"
    chunks = read_jsonl(input.chunks)
    texts = yaml.safe_load(Path(input.prompts).read_text(encoding="utf-8"))
    batch = backend_spec(params.llm["backend"]).batch
    via = "batch" if batch else "online"
    if spec["n"] == "auto":
        auto, fixed = auto_questions(read_json(input.effect), spec["measure"], spec["max_usd"], key, via), None
        print(auto_line(auto))
    else:
        priced = generation_cost(spec["n"], prompt_chars(texts, params.language, chunks), REPLY_TOKENS,
                                 dict(params.prices))
        auto, fixed = None, fixed_questions(spec["n"], priced, spec["max_usd"], key, via)
        print(fixed_line(fixed))
    target, most = (auto["needed"], auto["most"]) if auto else (fixed["n"], fixed["most"])
    prompts = prompts_in(texts, params.language)
    if spec["takes"] > 1 and "again" not in prompts:
        raise InputError(f"questions.sets.{name}.generate.prompts: {input.prompts} has no `again` prompt for "
                         f"{params.language}, which a later take asks with (takes: {spec['takes']}); add it, or set "
                         "takes: 1")
    backend, store = make_backend(dict(params.llm)), JsonStore(params.store, "generated-questions")
    pairs = len(chunks) * len(spec["kinds"])   # past them, sample_chunks gives each pair's next take
    size = min(auto["n"] if auto else fixed["asked"], pairs)
    sample, candidates, kept, rounds, paid, cost, stopped = [], [], [], [], 0, 0.0, None
    earlier: dict[tuple[str, str], list[str]] = {}   # the questions each (chunk, kind)'s takes wrote
    while stopped is None:
        sample = sample_chunks(chunks, len(sample) + size, list(spec["kinds"]), spec["seed"])
        new = sample[len(candidates):]
        asks = [(prompts["system"], user_prompt(prompts, chunk, kind, earlier.get((chunk["chunk_id"], kind), [])),
                 chunk, kind) for chunk, kind, _ in new]
        for (chunk, kind, _), (reply, now, usd) in zip(new, replies(backend, store, asks, params, batch)):
            paid, cost = paid + now, cost + usd
            candidates.append({"id": f"{name}-{len(candidates):04d}", "chunk": chunk, "kind": kind, "reply": reply})
            if parsed := parse_reply(reply):
                earlier.setdefault((chunk["chunk_id"], kind), []).append(parsed[0])
        kept, dropped, near_rule = kept_of(candidates, spec, input, params, threads)
        rounds.append({"take": new[0][2], "asked": size, "kept": len(kept)})
        size, stopped = next_round(target, rounds, most, pairs, spec["takes"])
        print(f"round {len(rounds)} (take {new[0][2]}): asked {rounds[-1]['asked']:,}, kept {len(kept):,} of "
              f"{len(sample):,} so far" + (f"; asking {size:,} more for the {target:,}" if stopped is None else ""))
    past_n = max(0, len(kept) - target)
    kept = kept[:target]   # the first ones in sample order: a set that does not move with more rounds
    write_jsonl(output.set, [{"id": k["id"], "question": k["question"], "gold_slug": k["chunk"]["slug"],
                              "gold_passage": k["passage"], "cluster": k["chunk"]["slug"], "generated": True,
                              "kind": k["kind"], "source_chunk": k["chunk"]["chunk_id"], "overlap": k["overlap"]}
                             for k in kept])
    docs = len({c["slug"] for c, _, _ in sample})
    record = {"set": name, "generated": True, "settings": spec, "backend": backend.identity(),
              "language": params.language, "asked": len(sample), "documents": docs,
              "sample": [[c["chunk_id"], kind, take] for c, kind, take in sample], "paid_calls": paid,
              "from_store": len(sample) - paid, "cost_usd": round(cost, 6), "dropped": dict(dropped),
              "rounds": rounds, "stopped": stopped, "kept": len(kept), "kept_past_n": past_n,
              "kept_by_kind": dict(Counter(k["kind"] for k in kept)), **({"auto": auto} if auto else {"priced": fixed})}
    write_json(output.record, record)
    print(f"set {name}: {len(sample)} questions asked of {backend.identity()} in {len(rounds)} rounds from "
          f"{len({c['chunk_id'] for c, _, _ in sample})} chunks of "
          f"{docs} documents (seed {spec['seed']}), at most {sample[-1][2]} of {spec['takes']} takes of a "
          f"(chunk, kind); {paid} calls paid now, {len(sample) - paid} from the store"
          f"{f', {cost:.4f} USD' if paid else ''}; stopped: {stopped}")
    for reason in REASONS:
        print(f"  dropped, {reason}: {dropped[reason]}" + (f" ({near_rule})" if reason == REASONS[-1] else ""))
    print(f"  kept {len(kept)}: " + ", ".join(f"{k} {n}" for k, n in record["kept_by_kind"].items())
          + (f" ({past_n} more the filters kept, past the {target:,}, left out)" if past_n else ""))
    if len(kept) < target:
        wanted = f"{auto['measure']} needs" if auto else "asked for"
        print(f"  n: {'auto' if auto else target}: {len(kept):,} kept of the {target:,} {wanted} (stopped: {stopped})"
              + (": the verdict may not decide" if auto else ""))
    for kind in spec["kinds"]:
        shares = [k["overlap"] for k in kept if k["kind"] == kind]
        if shares:
            print(f"  {kind}: mean content-word overlap with the chunk {sum(shares) / len(shares):.2f} "
                  f"(cap {spec['overlap_cap']}{', not applied to lexical' if kind == 'lexical' else ''})")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
