"""Requests through a provider's batch API, in one job, each answer paid once ever: every
document's contexts (`batch_contexts`), and any other stage's calls (generated questions, relevance
judgments) through the same machinery (`batch_answers`): a request is its store key and its body,
and `Answers` (what holds the answers: has, keep, record_failure) is the caller's.

The requests are the online backend's (same prompt, same cached system block, same store keys),
a document's requests kept together in one batch (its first request writes the cache its later
ones read), split by the provider's limits (requests, bytes). Nothing is paid twice, nothing lost:

- before a batch is submitted, its request keys are written to the store (`ctx-batches/`, a
  stage's own log for other stages' calls), and
  its id the moment the API returns it; a later run finds the open batch and collects it instead
  of submitting those requests again (a kill -9, a reboot, a cluster job's time limit); a create
  call whose answer was lost (a 500 once the batch was made, a timeout, a kill inside it) is
  followed by a look for the batch it may have made (backend.find) before creating again;
- each answer is stored as the results file is read;
- a request that errored, expired or was canceled is counted by cause (the record's
  `discarded`, so the ledger) and sent again in a later batch, up to contexts.attempts in all
  and never once max_wait_h has passed; one the ended batch's results leave out (or name only
  in a line that cannot be read), by the cause its state names (a canceled or failed OpenAI
  batch; else no_result);
- only the custom ids a batch was sent are read from its results: another is ignored (a line
  in the log), never a path in the store;
- a batch of two or more requests whose every reply fails the same reply check (all refused,
  all empty) stops the job with one line instead of paying for all of them again;
- a batch still running at contexts.batch.max_wait_h leaves one line per batch and fails the job
  (InputError): the next run collects it (at_max_wait: leave), or it is canceled, what it
  answered is stored and the next run sends the rest again (at_max_wait: cancel).
"""
from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol

from ctxret.contexts.llm import AttemptFailed, BatchState, CallResult, Unreachable
from ctxret.contexts.per_document import ContextStore, chunk_key, now, paid_answer
from ctxret.contexts.prompt import Prompt
from ctxret.contexts.replies import ReplyChecks
from ctxret.errors import InputError
from ctxret.fileio import read_json, write_json, write_jsonl
from ctxret.store import JsonStore, check_writable, claimed, content_key
from ctxret.text.chunk_text import prompt_chunk


# the causes of a reply the checks reject: a batch whose every reply fails one of them stops the run
REPLY_CHECKS = ("empty", "too_long", "control_chars", "refusal")


@dataclass
class Request:
    key: str
    slug: str           # a document's requests go in one batch
    chunk: dict
    body: dict          # what the API is sent (custom_id = key)


class Answers(Protocol):
    """What holds a batch run's answers, by store key."""
    failures_dir: Path   # where the causes of failed requests are kept (named in messages)

    def has(self, key: str) -> bool: ...

    def keep(self, key: str, result: CallResult, entry: dict) -> None:
        """Store a paid reply of `entry`'s batch (its batch_id, submitted)."""

    def record_failure(self, key: str, discarded: list[dict]) -> None: ...


@dataclass
class ContextAnswers:
    """A1's answers: the ContextStore's, each as the online backend stores it (paid_answer) with its batch."""
    store: ContextStore
    identity: dict
    api: str
    template_sha256: str

    @property
    def failures_dir(self) -> Path:
        return self.store.failures.dir

    def has(self, key: str) -> bool:
        return self.store.answer(key) is not None

    def keep(self, key: str, result: CallResult, entry: dict) -> None:
        self.store.keep(key, paid_answer(result, self.identity, self.template_sha256, entry["submitted"],
                                         self.store.failed_attempts(key),
                                         batch={"api": self.api, "id": entry["batch_id"]}),
                        f"batch {entry['batch_id']} {key[:12]}")

    def record_failure(self, key: str, discarded: list[dict]) -> None:
        self.store.record_failure(key, discarded)


@dataclass
class Waiting:
    """contexts.batch: how long to wait and how often to look."""
    max_wait_h: float
    at_max_wait: str      # leave: the next run collects the open batches; cancel: cancel them, keep their answers
    poll_s: float
    poll_max_s: float
    progress_s: float


class BatchLog:
    """The batches submitted with this store: `<store>/ctx-batches/<name>.json` (another stage's:
    `<store>/<folder>/`), one per batch: {name, api, keys, intended, batch_id (None until the API
    returned it), submitted, state (open, collected)}."""

    def __init__(self, root: str, folder: str = "ctx-batches"):
        self.dir = Path(root) / folder

    def entries(self, api: str) -> list[dict]:
        found = [read_json(p) for p in sorted(self.dir.glob("*.json"))] if self.dir.exists() else []
        return sorted((e for e in found if e["api"] == api), key=lambda e: e["intended"])

    def save(self, entry: dict) -> None:
        write_json(self.dir / f"{entry['name']}.json", entry)

    def intend(self, api: str, keys: list[str]) -> dict:
        entry = {"name": f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}", "api": api, "keys": keys,
                 "intended": now(), "batch_id": None, "submitted": None, "state": "open"}
        self.save(entry)
        return entry


def batches_of(requests: list[Request], max_requests: int, max_bytes: int, size: Callable[[dict], int]) -> list[list[Request]]:
    """The requests in batches within the limits, a document's requests in one batch unless they
    alone exceed a batch."""
    out: list[list[Request]] = [[]]
    used = 0
    by_doc: dict[str, list[Request]] = {}
    for r in requests:
        by_doc.setdefault(r.slug, []).append(r)
    for doc in by_doc.values():
        doc_bytes = sum(size(r.body) for r in doc)
        if out[-1] and (len(out[-1]) + len(doc) > max_requests or used + doc_bytes > max_bytes):
            out.append([])
            used = 0
        for r in doc:
            if out[-1] and (len(out[-1]) >= max_requests or used + size(r.body) > max_bytes):
                out.append([])
                used = 0
            out[-1].append(r)
            used += size(r.body)
    return [b for b in out if b]


@dataclass
class BatchRun:
    """One job's batch run: what it asks for, what it has, what failed how often."""
    backend: object
    store: Answers
    log: BatchLog
    attempts: int
    waiting: Waiting
    requests: dict[str, Request]
    check: Callable[[CallResult], None] | None = None         # a reply it rejects (AttemptFailed) is a failed request
    tries: dict[str, int] = field(default_factory=dict)        # requests per key, in this run
    retry: list[str] = field(default_factory=list)             # keys failed, to send again
    submitted: int = 0                                         # requests submitted by this run
    collected: int = 0                                         # answers read by this run
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep

    def answered(self, key: str) -> bool:
        return self.store.has(key)

    def submit(self, requests: list[Request]) -> list[dict]:
        entries = []
        for part in batches_of(requests, self.backend.max_requests, self.backend.max_bytes,
                               self.backend.request_bytes):
            entry = self.log.intend(self.backend.api, [r.key for r in part])   # the keys first
            entry["batch_id"] = self.created(entry, [r.body for r in part])
            entry["submitted"] = now()
            self.log.save(entry)
            self.submitted += len(part)
            print(f"batch {entry['batch_id']}: submitted {len(part):,} requests "
                  f"({len({r.slug for r in part}):,} documents)", flush=True)
            entries.append(entry)
        return entries

    def created(self, entry: dict, bodies: list[dict]) -> str:
        """The id of `entry`'s batch, created once: after a create call that failed (a 500 once the
        batch was made, a timeout) the batch it may have made is looked for before creating again;
        after a timeout, for as long again as the call was given (the provider may still be making it)."""
        settle = []   # per failed create: how long its batch may still take to appear, in seconds

        def create() -> str:
            if settle and (found := self.settled(entry, settle[-1])) is not None:
                return found
            try:
                return self.backend.submit(bodies, entry["name"])
            except AttemptFailed as e:
                settle.append(self.backend.timeout_s if e.cause == "timeout" else 0.0)
                raise
        return self.call(create, "submitting a batch")

    def settled(self, entry: dict, settle_s: float) -> str | None:
        """`found`, asked again every poll_s until `settle_s` has passed."""
        until = self.clock() + settle_s
        while (found := self.found(entry)) is None and self.clock() < until:
            self.sleep(self.waiting.poll_s)
        return found

    def found(self, entry: dict) -> str | None:
        """The batch the provider made for `entry` though its id never came back, or None."""
        known = {e["batch_id"] for e in self.log.entries(self.backend.api)} - {None}
        batch_id = self.backend.find(entry["name"], len(entry["keys"]), entry["intended"], known)
        if batch_id is not None:
            print(f"batch {batch_id}: created for {entry['name']} though the API's answer was lost; collecting it, "
                  f"not creating another", flush=True)
        return batch_id

    def call(self, request, what: str):
        """An API call; a transient failure (429, 5xx, timeout) is tried again after a wait."""
        for i in range(self.attempts):
            try:
                return request()
            except Unreachable as e:
                raise InputError(f"llm backend {self.backend.name!r}: {e}") from None
            except AttemptFailed as e:
                if i + 1 == self.attempts:
                    raise InputError(f"llm backend {self.backend.name!r}: {what} failed {self.attempts} times "
                                     f"({e.cause}: {e.detail}); run again: nothing is submitted twice") from None
                wait = self.waiting.poll_s * 2 ** i
                print(f"{what} failed ({e.cause}: {e.detail}); again in {wait:g} s", flush=True)
                self.sleep(wait)

    def collect(self, entry: dict, state: BatchState) -> list[str]:
        """Store every answer of an ended batch as its results are read; the keys that failed. Only
        the custom ids this batch was sent are read: any other is never a path, never stored."""
        if state.note:
            print(f"batch {entry['batch_id']}: {state.note}", flush=True)
        sent = set(entry["keys"])
        failed, seen, unknown, unreadable, rejected = [], set(), 0, [], []
        for key, outcome in self.call(lambda: self.backend.results(entry["batch_id"]), "reading results"):
            if key is None:
                unreadable.append(outcome.detail)
                continue
            if key not in sent or key in seen:
                unknown += 1
                continue
            seen.add(key)
            if not isinstance(outcome, AttemptFailed) and self.check is not None:
                outcome = self.checked(outcome)
            if isinstance(outcome, AttemptFailed):
                self.store.record_failure(key, [{"cause": outcome.cause, "detail": outcome.detail, "at": now()}])
                failed.append(key)
                rejected.append(outcome)
            elif not self.answered(key):
                self.store.keep(key, outcome, entry)
                self.collected += 1
        if unknown:
            print(f"batch {entry['batch_id']}: {unknown:,} results lines ignored (a custom_id this batch was not "
                  f"sent, or sent twice)", flush=True)
        if unreadable:
            print(f"batch {entry['batch_id']}: {len(unreadable):,} results lines could not be read (first: "
                  f"{unreadable[0]})", flush=True)
        missing = [k for k in entry["keys"] if k not in seen]   # never seen in the results
        why = f"no result in batch {entry['batch_id']}" + (f" ({state.note})" if state.note else "") + \
            (f"; {len(unreadable):,} of its results lines could not be read" if unreadable else "")
        for key in missing:
            self.store.record_failure(key, [{"cause": state.unanswered, "detail": why, "at": now()}])
        for key in entry["keys"]:   # each a request paid for, answered or not
            self.tries[key] = self.tries.get(key, 0) + 1
        entry["state"] = "collected"
        self.log.save(entry)
        causes = {e.cause for e in rejected}
        if len(entry["keys"]) > 1 and len(rejected) == len(entry["keys"]) and len(causes) == 1 \
                and causes <= set(REPLY_CHECKS):   # the prompt or the model, not chance: sending all again pays for nothing
            raise InputError(f"batch {entry['batch_id']}: all {len(rejected):,} replies failed the same check "
                             f"({rejected[0].cause}: {rejected[0].detail}); none is sent again, nothing more is "
                             f"paid: look at the prompt, the model and contexts.reply, then run again")
        return failed + missing

    def checked(self, result: CallResult) -> CallResult | AttemptFailed:
        try:
            self.check(result)
            return result
        except AttemptFailed as e:
            return e

    def wait_for(self, entries: list[dict], started: float) -> list[dict]:
        """Poll the open batches (backoff from poll_s to poll_max_s), a progress line every
        progress_s; the entries still open at max_wait_h (none: all ended)."""
        deadline = started + self.waiting.max_wait_h * 3600
        interval, next_line = self.waiting.poll_s, self.clock()
        open_entries = list(entries)
        total = sum(len(e["keys"]) for e in entries)
        states = {}   # every batch's last state, the ended ones' included
        while open_entries:
            states.update({e["batch_id"]: self.call(lambda e=e: self.backend.state(e["batch_id"]), "polling")
                           for e in open_entries})
            for e in [e for e in open_entries if states[e["batch_id"]].status == "ended"]:
                self.retry += self.collect(e, states[e["batch_id"]])
                open_entries.remove(e)
            if not open_entries:
                break
            if self.clock() >= next_line:
                counts = {k: sum(s.counts.get(k, 0) for s in states.values())
                          for k in ("succeeded", "errored", "expired", "canceled")}
                done = sum(s.done for s in states.values())
                print(f"batches open {len(open_entries)}: done {done:,} of {total:,} (succeeded "
                      f"{counts['succeeded']:,}, errored {counts['errored']:,}, expired {counts['expired']:,}), "
                      f"elapsed {elapsed(self.clock() - started)}", flush=True)
                next_line += self.waiting.progress_s
            if self.clock() >= deadline:
                for e in open_entries:
                    s = states[e["batch_id"]]
                    then = "run again to collect" if self.waiting.at_max_wait == "leave" else "canceling it"
                    print(f"batch {e['batch_id']} {s.done:,} of {len(e['keys']):,} done; {then}", flush=True)
                return open_entries
            self.sleep(max(0.0, min(interval, deadline - self.clock(), next_line - self.clock())))
            interval = min(interval * 2, self.waiting.poll_max_s)
        return []


def elapsed(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def batch_contexts(docs: dict[str, tuple[dict, list[dict]]], backend, prompt: Prompt, extra: str,
                   store: ContextStore, log: BatchLog, attempts: int, waiting: Waiting,
                   sleep: Callable[[float], None] = time.sleep,
                   checks: ReplyChecks | None = None) -> tuple[dict[str, list[dict]], dict]:
    """({slug: records}, counts) for every chunk of `docs`; InputError when a batch is still open
    at max_wait_h or a chunk is left without a context after `attempts` requests."""
    identity = backend.identity()
    requests: dict[str, Request] = {}
    for slug, (doc, chunks) in docs.items():
        system = prompt.system_for(doc["body"])
        for chunk in chunks:
            text = prompt_chunk(chunk)
            key = chunk_key(identity, prompt.sha256, extra, doc["body"], text)
            requests.setdefault(key, Request(key, slug, chunk, backend.request(key, system, prompt.user_for(text, extra))))
    counts = batch_answers(requests, backend, ContextAnswers(store, identity, backend.api, prompt.sha256), log,
                           attempts, waiting, sleep, checks.check if checks else None)
    records: dict[str, list[dict]] = {slug: [] for slug in docs}
    failed = []
    for key, r in requests.items():
        answer = store.answer(key)
        if answer is None:
            failed.append(r.chunk["chunk_id"])
            continue
        records[r.slug].append({"chunk_id": r.chunk["chunk_id"], "slug": r.slug, "key": key, **answer})
    if failed:
        raise InputError(f"no context for chunks {', '.join(failed)} after {attempts} requests each (their causes "
                         f"are kept in {store.failures.dir}); run again to try them again")
    return records, {"chunks": len(requests), **counts}


def batch_answers(requests: dict[str, Request], backend, answers: Answers, log: BatchLog, attempts: int,
                  waiting: Waiting, sleep: Callable[[float], None] = time.sleep,
                  check: Callable[[CallResult], None] | None = None) -> dict:
    """Every request `answers` lacks, answered through the batch API (the log's open batches
    collected first, never submitted again): the counts (from_store, submitted, collected). A
    request still without an answer after `attempts` is the caller's to name; InputError when a
    batch is still open at max_wait_h."""
    run = BatchRun(backend, answers, log, attempts, waiting, requests, sleep=sleep, check=check)
    started = run.clock()
    from_store = sum(run.answered(k) for k in requests)
    # open batches of an earlier run: collected, never submitted again
    entries = [e for e in log.entries(backend.api) if e["state"] == "open"]
    for e in [e for e in entries if e["batch_id"] is None]:   # killed inside the create call
        e["batch_id"] = run.call(lambda e=e: run.found(e), "looking for a batch")
        if e["batch_id"] is not None:
            e["submitted"] = e["intended"]
        else:
            print(f"batch {e['name']}: the run stopped while submitting it and the provider holds no batch of it; "
                  f"its {len(e['keys']):,} requests are submitted again", flush=True)
            e["state"] = "abandoned"
        log.save(e)
    resumed = [e for e in entries if e["batch_id"] is not None]
    for e in resumed:
        print(f"batch {e['batch_id']}: submitted {e['submitted']} by an earlier run; collecting it", flush=True)
    in_flight = {k for e in resumed for k in e["keys"]}
    todo = [r for k, r in requests.items() if k not in in_flight and not run.answered(k)]
    open_entries = resumed + (run.submit(todo) if todo else [])
    while open_entries:
        still_open = run.wait_for(open_entries, started)
        if still_open and waiting.at_max_wait == "cancel":
            for e in still_open:
                run.call(lambda e=e: backend.cancel(e["batch_id"]), "canceling a batch")
                print(f"batch {e['batch_id']}: canceled at contexts.batch.max_wait_h; collecting what it answered",
                      flush=True)
            run.wait_for(still_open, run.clock())    # canceling ends within minutes
            left = sum(not run.answered(k) for e in still_open for k in e["keys"])
            raise InputError(f"{len(still_open)} batches canceled after contexts.batch.max_wait_h "
                             f"({waiting.max_wait_h:g} h); their answers are stored, {left:,} requests were not "
                             f"answered: run again to send them in a new batch")
        if still_open:
            raise InputError(f"{len(still_open)} batches still running after contexts.batch.max_wait_h "
                             f"({waiting.max_wait_h:g} h); their answers are collected by the next run, "
                             f"nothing is submitted twice: run again to collect")
        again = [requests[k] for k in dict.fromkeys(run.retry)
                 if k in requests and not run.answered(k) and run.tries.get(k, 0) < attempts]
        run.retry = []
        if again and run.clock() >= started + waiting.max_wait_h * 3600:   # nothing more paid by this run
            raise InputError(f"contexts.batch.max_wait_h ({waiting.max_wait_h:g} h) has passed: {len(again):,} failed "
                             f"requests are not sent again by this run (their causes are kept in "
                             f"{answers.failures_dir}); run again to send them")
        open_entries = run.submit(again) if again else []
    return {"from_store": from_store, "submitted": run.submitted, "collected": run.collected}


def write_documents(paths: dict[str, Path], variant: str, docs: dict[str, tuple[dict, list[dict]]], backend,
                    prompt: Prompt, params, waiting: Waiting, checks: ReplyChecks | None = None) -> str:
    """Every document's records to its file once every chunk has a context; the job's line."""
    start = time.perf_counter()
    store = ContextStore(params.store)
    check_writable(store.answers.dir)
    claim = content_key(backend=backend.identity(), template_sha256=prompt.sha256, extra_sentence=params.extra_sentence)
    with claimed(params.store, "ctx-batch", claim,
                 lambda: print(f"{variant}: waiting for another run collecting batches of this store", flush=True)):
        records, counts = batch_contexts(docs, backend, prompt, params.extra_sentence, store, BatchLog(params.store),
                                         int(params.attempts), waiting, checks=checks)
    for slug, path in paths.items():
        write_jsonl(path, records[slug])
    return (f"{variant}: documents {len(docs)}, chunks {counts['chunks']}, from store {counts['from_store']}, "
            f"requests submitted {counts['submitted']}, answers collected {counts['collected']}, "
            f"{time.perf_counter() - start:.1f} s")


@dataclass
class ReplyAnswers:
    """Another stage's answers (generated questions, relevance judgments): `<store>/<folder>/`, each
    as the stage's online path stores it ({reply, usage, cost_usd, model}) with its batch; the
    causes of failed requests in `<folder>-failed/`."""
    answers: JsonStore
    failures: JsonStore
    api: str

    @property
    def failures_dir(self) -> Path:
        return self.failures.dir

    def has(self, key: str) -> bool:
        return self.answers.get(key) is not None

    def keep(self, key: str, result: CallResult, entry: dict) -> None:
        self.answers.put(key, {"reply": result.context, "usage": result.usage, "cost_usd": result.cost_usd,
                               "model": result.model, "batch": {"api": self.api, "id": entry["batch_id"]}})

    def record_failure(self, key: str, discarded: list[dict]) -> None:
        self.failures.put(key, {"discarded": (self.failures.get(key) or {}).get("discarded", []) + discarded})


def ask_by_batch(asks: dict[str, tuple[str, str, dict]], backend, root: str, folder: str, attempts: int,
                 waiting: Waiting, check: Callable[[CallResult], None] | None = None) -> dict:
    """A stage's calls {store key: (system, user, chunk)} through the batch API, their answers kept
    in `<root>/<folder>/` as the stage's online path keeps them (`ReplyAnswers`); its batches logged
    in `<folder>-batches/`, one run at a time per folder. The counts (batch_answers'); a key still
    without an answer is the caller's to name."""
    requests = {key: Request(key, chunk["slug"], chunk, backend.request(key, system, user))
                for key, (system, user, chunk) in asks.items()}
    answers = ReplyAnswers(JsonStore(root, folder), JsonStore(root, f"{folder}-failed"), backend.api)
    check_writable(answers.answers.dir)
    with claimed(root, f"{folder}-batch", content_key(backend=backend.identity()),
                 lambda: print(f"{folder}: waiting for another run collecting batches of this store", flush=True)):
        return batch_answers(requests, backend, answers, BatchLog(root, f"{folder}-batches"), attempts, waiting,
                             check=check)
