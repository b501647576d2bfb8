"""Generated question sets (questions.sets.<name>.generate): the chunks sampled, the prompts
filled, the replies read and the filters that keep a question, as pure functions; the stage
questions_generate asks the LLM and writes the set.

Gold is known by construction: the chunk a question was written from and the passage the reply
copied from it, which must be in the chunk verbatim. A candidate is dropped, each reason counted,
when its reply is not the JSON asked for, its passage is not in the chunk, it quotes the chunk (a
verbatim run of more than `quote_chars` characters), it shares too many content words with the
chunk (paraphrased and context_needing only: `overlap` above `overlap_cap`), it is not in the
corpus language (ctxret.languages.short_text_in: by script, a Latin-script one by py3langid) or
it nearly repeats a question kept before it (`near_duplicates`: the cosine of the questions'
vectors by the run's first model slot at or above `duplicate_cosine`; without a model slot,
character-trigram Jaccard at or above `duplicate_similarity`). n is the questions kept: with n:
auto, `auto_questions` takes it from the free pilot's figure; a fixed n is priced alike
(`fixed_questions`); the first round asks n, cut to what max_usd buys, and while fewer are kept
`next_round` asks more, by the keep rate so far, within the budget and the corpus's (chunk, kind)
pairs, each asked up to `takes` times: take k+1 of a pair asks for a question other than its
earlier takes' (`user_prompt`), so a round never reaches past the end of a take's cycle.
"""
from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from difflib import SequenceMatcher

import numpy as np

from ctxret.errors import InputError
from ctxret.languages import language as language_record
from ctxret.languages import short_text_in

KINDS = ("lexical", "paraphrased", "context_needing")
# What one generated question's reply takes: the question and its passage (a planning figure)
REPLY_TOKENS = 150
# Dropped, in the order the filters run (the log prints each count)
REASONS = ("reply not JSON {question, passage}", "passage not verbatim in the chunk", "quotes the chunk",
           "lexical overlap above the cap", "wrong language", "near-duplicate question")
# Words that carry no content (English), and the particles a Korean word ends in
STOPWORDS = frozenset("a an the of in on at to for from by with and or is are was were be been what which who "
                      "whom whose how why when where does do did this that these those it its as into about "
                      "can could should would will".split())
# Why the rounds of asking stopped
STOPS = ("target reached", "budget", "corpus exhausted", "a round kept nothing new")
# The questions rounds that keep none were expected to keep (at the rate as of the last gain) to stop the rounds
NOTHING_NEW = 3
PARTICLES = re.compile("(은|는|이|가|을|를|의|에|에서|으로|로|와|과|도|만|이나|나|란|이란|인가|인가요)$")


def sample_chunks(chunks: list[dict], n: int, kinds: list[str], seed: int) -> list[tuple[dict, str, int]]:
    """n (chunk, kind, take) triples: documents in a seeded order, their chunks shuffled, taken one
    per document in turn (stratified: every document before any gives a second chunk); the kinds
    in rotation, a chunk taken again (n above the chunks) with the next kind; past every (chunk,
    kind) pair, the same order again as the pairs' next take (take 1, then 2, ...)."""
    rng = random.Random(seed)
    by_doc: dict[str, list[dict]] = {}
    for c in chunks:
        by_doc.setdefault(c["slug"], []).append(c)
    docs = sorted(by_doc)
    rng.shuffle(docs)
    for slug in docs:
        rng.shuffle(by_doc[slug])
    order = [by_doc[s][i] for i in range(max(map(len, by_doc.values()), default=0)) for s in docs
             if i < len(by_doc[s])]
    if not order:
        return []
    pairs = len(order) * len(kinds)
    # past the pairs, i's kind is that of i - pairs: the order repeats
    return [(order[i % len(order)], kinds[(i % len(order) + i // len(order)) % len(kinds)], i // pairs + 1)
            for i in range(n)]


def prompts_in(prompts: dict, language: str) -> dict:
    """The prompts (config/question-prompts.yaml or config/judge-prompt.yaml, read) in the corpus
    language's own words, else English's with {language} filled with the language's English name."""
    name = language_record(language).name or "the chunk's language"
    return {k: v.replace("{language}", name) for k, v in (prompts.get(language) or prompts["en"]).items()}


def prompt_chars(prompts: dict, language: str, chunks: list[dict]) -> float:
    """The characters of one generation call: the system prompt, a mean kind's prompt (the corpus
    language's, prompts_in; `prompts` as config/question-prompts.yaml reads) and a mean chunk."""
    texts = prompts_in(prompts, language)
    kinds = [v for k, v in texts.items() if k in KINDS]
    return (len(texts["system"]) + sum(map(len, kinds)) / len(kinds)
            + sum(len(c["text"]) for c in chunks) / len(chunks))


def fill(template: str, chunk: dict) -> str:
    return template.replace("{title}", chunk.get("title", "")).replace("{chunk}", chunk["text"])


def user_prompt(prompts: dict, chunk: dict, kind: str, earlier: list[str]) -> str:
    """The kind's prompt filled with the chunk; for a later take, its `again` line after it with
    the questions the earlier takes of this (chunk, kind) wrote, one a line (none: take 1's prompt)."""
    prompt = fill(prompts[kind], chunk)
    return prompt + "\n" + prompts["again"].replace("{earlier}", "\n".join(earlier)) if earlier else prompt


def parse_reply(text: str) -> tuple[str, str] | None:
    """(question, passage) of a reply holding one JSON object (a code fence around it allowed), else None."""
    m = re.search(r"\{.*\}", text, re.S)
    try:
        obj = json.loads(m.group(0)) if m else None
    except json.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or not all(isinstance(obj.get(k), str) and obj[k].strip()
                                            for k in ("question", "passage")):
        return None
    return obj["question"].strip(), obj["passage"].strip()


def content_words(text: str) -> set[str]:
    """Lower-cased words of two letters or more, without stop words; a Korean word without its particle."""
    words = (PARTICLES.sub("", w) if re.search("[\uac00-\ud7a3]", w) else w for w in re.findall(r"\w+", text.lower()))
    return {w for w in words if len(w) >= 2 and w not in STOPWORDS}


def overlap(question: str, chunk_text: str) -> float:
    """The share of the question's content words that the chunk holds (0 for a question without any)."""
    q = content_words(question)
    return len(q & content_words(chunk_text)) / len(q) if q else 0.0


def longest_quote(question: str, chunk_text: str) -> int:
    """Characters of the longest run the question copies from the chunk."""
    match = SequenceMatcher(None, question, chunk_text, autojunk=False)
    return match.find_longest_match(0, len(question), 0, len(chunk_text)).size


def trigrams(text: str) -> set[str]:
    s = " ".join(re.findall(r"\w+", text.lower()))
    return {s[i:i + 3] for i in range(max(1, len(s) - 2))}


def similarity(a: str, b: str) -> float:
    ta, tb = trigrams(a), trigrams(b)
    return len(ta & tb) / len(ta | tb) if ta | tb else 1.0


def screen(candidates: list[dict], language: str, overlap_cap: float, quote_chars: int) -> tuple[list[dict], Counter]:
    """The candidates ({chunk, kind, reply}) that pass every filter but the near-duplicate one, each
    with question, passage and its overlap, and the count dropped for each of REASONS."""
    kept, dropped = [], Counter({r: 0 for r in REASONS})
    for c in candidates:
        parsed = parse_reply(c["reply"])
        text = c["chunk"]["text"]
        reason = None
        if parsed is None:
            reason = REASONS[0]
        else:
            question, passage = parsed
            share = overlap(question, text)
            if passage not in text:
                reason = REASONS[1]
            elif longest_quote(question, text) > quote_chars:
                reason = REASONS[2]
            elif c["kind"] != "lexical" and share > overlap_cap:
                reason = REASONS[3]
            elif not short_text_in(question, language):
                reason = REASONS[4]
        if reason:
            dropped[reason] += 1
        else:
            kept.append({**c, "question": question, "passage": passage, "overlap": round(share, 3)})
    return kept, dropped


def near_duplicates(questions: list[str], vectors: np.ndarray | None, cosine: float, trigram: float) -> list[bool]:
    """Per question, whether it nearly repeats one kept before it (in order, a dropped one is no
    reference): by the cosine of its vector (rows of `vectors`) at or above `cosine`, or, without
    vectors, by character-trigram Jaccard at or above `trigram`."""
    if vectors is not None:
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    kept, out = [], []
    for i, q in enumerate(questions):
        if vectors is not None:
            near = bool(kept) and float(np.max(unit[kept] @ unit[i])) >= cosine
        else:
            near = any(similarity(q, questions[k]) >= trigram for k in kept)
        out.append(near)
        if not near:
            kept.append(i)
    return out


def auto_questions(effect: dict | None, measure: str, max_usd: float, key: str, via: str = "online") -> dict:
    """A generated set's n: auto: the questions `measure` needs for the smallest effect (the free
    pilot's figure, as the preregistration states it), what asking that many costs `via` (online,
    or batch: a batch backend's prices), and the
    first round: that many cut to what `max_usd` buys (`short`: the budget stops short of the
    figure; `most`: the questions it buys over all rounds, None without a limit). InputError,
    before anything is paid, when there is no figure to take or the budget buys no question
    (`key`: the setting, questions.sets.<name>.generate.n)."""
    if effect is None:
        raise InputError(f"{key}: auto needs the free pilot: no primary whose planning pair has human "
                         "questions (pairs.primary, questions.groups); set n, or mend them and generate again")
    m = effect["measures"][measure]
    if m["needed"] is None:
        raise InputError(f"{key}: auto: the free pilot gives {measure} no figure for a difference of "
                         f"{effect['effect']:g} (no difference in the pilot, or over the cap); "
                         f"set n, or another generate.measure")
    if m.get("generation") is None:
        raise InputError(f"{key}: auto: generating questions is not priced (no contexts.llm model in "
                         "contexts.prices), so max_usd cannot bound it; set n")
    cost = m["generation"][f"{via}_usd"]
    n, most = within_budget(m["needed"], cost, max_usd, f"{key}: auto", "raise max_usd or set n", via)
    return {"measure": measure, "effect": effect["effect"], "pilot": effect["pilot"], "needed": m["needed"],
            "cost_usd": cost, "via": via, "max_usd": max_usd, "n": n, "most": most, "short": n < m["needed"]}


def fixed_questions(n: int, generation: dict, max_usd: float, key: str, via: str = "online") -> dict:
    """A fixed n priced as n: auto is (`generation`: contexts.prices.generation_cost of n), its
    first round cut to what `max_usd` buys (`short`, `most` as auto_questions'); InputError, before
    anything is paid, when it buys none."""
    cost = generation[f"{via}_usd"]
    asked, most = within_budget(n, cost, max_usd, f"{key}: {n}", "raise max_usd or lower n", via)
    return {"n": n, "cost_usd": cost, "via": via, "max_usd": max_usd, "asked": asked, "most": most,
            "short": asked < n}


def within_budget(wanted: int, cost: float, max_usd: float, where: str, remedy: str,
                  via: str) -> tuple[int, int | None]:
    """Of `wanted` questions costing `cost` (`via`: online, batch), (as many as `max_usd` buys, the most it buys in
    all: None when they cost nothing); InputError when it buys none."""
    most = None if cost <= 0 else max(math.floor(wanted * max_usd / cost), wanted if cost <= max_usd else 0)
    n = wanted if most is None else min(wanted, most)
    if n < 1:
        raise InputError(f"{where}: max_usd {max_usd:g} buys no question (one costs ${cost / wanted:.4f} {via}); "
                         f"{remedy}")
    return n, most


def next_round(target: int, rounds: list[dict], most: int | None, pairs: int, takes: int) -> tuple[int, str | None]:
    """After a round (`rounds`: each round's {asked, kept so far}): (how many more to ask, None), or
    (0, why the rounds stop: one of STOPS). More is what the keep rate so far (kept of asked) needs
    to reach `target`, at least 1, within the budget's `most` questions, the corpus's `pairs` (chunk,
    kind) pairs asked `takes` times each, and the end of the current take's cycle (a take's prompt
    needs the earlier takes' replies). Rounds that keep nothing new stop them once the keep rate as
    of the last round that kept one says they should have kept `NOTHING_NEW` or more between them
    (a small round at a cycle's end may keep none by chance); a first round that keeps nothing does."""
    asked, kept = sum(r["asked"] for r in rounds), rounds[-1]["kept"]
    if kept >= target:
        return 0, STOPS[0]
    gained = max(i for i, r in enumerate(rounds) if i == 0 or r["kept"] > rounds[i - 1]["kept"])
    asked_then = sum(r["asked"] for r in rounds[:gained + 1])
    if kept == 0 or (asked - asked_then) * kept / asked_then >= NOTHING_NEW:
        return 0, STOPS[3]
    if asked >= pairs * takes:
        return 0, STOPS[2]
    if most is not None and asked >= most:
        return 0, STOPS[1]
    more = max(1, math.ceil((target - kept) * asked / kept))
    return min(more, pairs - asked % pairs, math.inf if most is None else most - asked), None
