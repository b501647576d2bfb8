"""BM25 as the README documents it, written from the README alone (no ctxret import): Kiwi
morphemes whose tag, or the tag without its -R/-I conjugation mark, is in `bm25.pos`, lower case;
identifiers (runs of ASCII letters and digits joined by single . _ - : /) one token each; bm25s's Lucene BM25 weights; a question scores a chunk by the sum of its terms'
weights, each counted as often as the question holds it; ties ranked by chunk id. Japanese
(docs/analysis.md, `japanese`): SudachiPy's morphemes in split mode A whose part of speech is a
noun, pronoun, verb, adjective, adjectival noun or adverb, normalised, lower case; identifiers whole.

Figures as the README defines them, from the run's own text files (var-<variant>.jsonl,
questions.jsonl): a passage question's gold units are its passages, each satisfied by the chunks
of its gold document whose T1 text holds the whole passage.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np

POS = ["NNG", "NNP", "NNB", "NR", "NP", "VV", "VA", "XR", "SL", "SH", "SN", "MAG"]   # bm25.pos's default
IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[._\-:/][A-Za-z0-9]+)+")


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def analyse(texts: list[str], pos=POS) -> list[list[str]]:
    from kiwipiepy import Kiwi
    kiwi, wanted = Kiwi(), set(pos)

    def identifiers(text):
        return [(m.start(), m.end(), "SL") for m in IDENTIFIER.finditer(text)]

    def kept(tag):
        return tag in wanted or re.sub(r"-[RI]$", "", tag) in wanted

    return [[t.form.lower() for t in tokens if kept(t.tag)]
            for tokens in kiwi.tokenize(texts, pretokenized=identifiers)]


def analyse_japanese(texts: list[str]) -> list[list[str]]:
    from sudachipy import Dictionary
    sudachi = Dictionary(dict="core").tokenizer(mode="A")
    content = {"名詞", "代名詞", "動詞", "形容詞", "形状詞", "副詞"}
    out = []
    for text in texts:
        tokens, at = [], 0
        for m in [*IDENTIFIER.finditer(text), None]:
            between = text[at:m.start() if m else len(text)]
            tokens += [w.normalized_form().lower() for w in sudachi.tokenize(between)
                       if w.part_of_speech()[0] in content] if between else []
            if m:
                tokens.append(m.group().lower())
                at = m.end()
        out.append(tokens)
    return out


def rankings(chunks: list[dict], questions: list[dict], depth: int, k1=1.5, b=0.75,
             analyse=analyse) -> dict[str, list[str]]:
    """question id -> the top `depth` chunk ids."""
    import bm25s
    retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
    retriever.index(analyse([c["text"] for c in chunks]), show_progress=False)
    order = np.argsort([c["chunk_id"] for c in chunks], kind="stable")
    ids = np.array([c["chunk_id"] for c in chunks])[order]
    ranked = {}
    for q, tokens in zip(questions, analyse([q["question"] for q in questions])):
        scores = np.zeros(len(chunks))
        for term, n in Counter(tokens).items():
            scores += n * retriever.get_scores([term]).astype(np.float64)
        scores = scores[order]
        top = np.lexsort((np.arange(len(ids)), -scores))[:depth]
        ranked[q["id"]] = [ids[i] for i in top if scores[i] > 0]
    return ranked


def figures(results: Path, variant: str, analyse=analyse) -> dict[str, float]:
    """fail@5, fail@20, recall@5, mrr (MRR@10) and doc_recall (@5) of bm25 on `variant`."""
    t1 = lines(results / "var-T1.jsonl")
    chunks = lines(results / f"var-{variant}.jsonl")
    questions = lines(results / "questions.jsonl")
    slug_of = {c["chunk_id"]: c["slug"] for c in t1}
    ranked = rankings(chunks, questions, 20, analyse=analyse)
    rows = []
    for q in questions:
        passages = q["gold_passage"] if isinstance(q["gold_passage"], list) else [q["gold_passage"]]
        units = [{c["chunk_id"] for c in t1 if c["slug"] == q["gold_slug"] and p in c["text"]} for p in passages]
        top = ranked[q["id"]]
        found = [any(c in unit for c in top[:5]) for unit in units]
        first = next((i for i, c in enumerate(top[:10], 1) if any(c in unit for unit in units)), None)
        rows.append({"fail@5": not any(found), "fail@20": not any(c in u for u in units for c in top[:20]),
                     "recall@5": sum(found) / len(units), "mrr": 1 / first if first else 0.0,
                     "doc_recall": any(slug_of[c] == q["gold_slug"] for c in top[:5])})
    return {name: float(np.mean([r[name] for r in rows])) for name in rows[0]}
