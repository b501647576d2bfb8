"""The languages on real translated documentation: FastAPI's docs, the same pages in English,
Japanese, Chinese, German, Spanish, French, Portuguese, Russian and Korean, read from a git
checkout or mirror of the project at run time (nothing of it is kept here).

    .venv/bin/python benchmarks/bench_languages.py --git PATH [--rev HEAD] [--questions 1000]

Per language: the pages every language has (docs/<lang>/docs/**/*.md); the language ctxret finds
in them (`corpus.language: auto`) and each language's share of the pages; the analyser its record
names, and its tokens of one sentence. Lexical questions: a section heading (## or ###) that every
language has (FastAPI keeps the English anchor, `{ #request-body }`, on each translated heading, so
sections pair up across languages), asked in the page's language; its gold, the chunks of that
section (paragraphs, code left out, the heading itself not among them). BM25 over all the pages'
chunks, by the language's analyser and, beside it, by `identifiers` (what Japanese and Chinese had
before their analysers): fail@5 and MRR@10.

Target (issue 48): every language found right; Japanese and Chinese fail@5 no higher than
English's on the same sections.
"""
from __future__ import annotations

import argparse
import random
import re
import subprocess
from collections import Counter

import numpy as np
from targets import load_line, target

from ctxret.config.schema import complete
from ctxret.languages import documents_by_language, found_language, language, letters_by_script
from ctxret.retrieval.bm25 import build_index, make_tokenizer, query_vector

LANGUAGES = ("en", "ja", "zh", "de", "es", "fr", "pt", "ru", "ko")
HEADING = re.compile(r"^(#{2,3}) (.+?)\s*\{\s*#([\w-]+)\s*\}\s*$")
CODE_FENCE = re.compile(r"^(```|~~~)")
MARKUP = re.compile(r"^(///|\{\*|<)")   # admonition fences, code includes, HTML lines


def git(path: str, *args: str) -> str:
    return subprocess.run(["git", "-C", path, *args], check=True, capture_output=True, text=True).stdout


def pages(path: str, rev: str, code: str) -> dict[str, str]:
    """page path (under docs/<code>/docs) -> its markdown."""
    root = f"docs/{code}/docs/"
    names = [n for n in git(path, "ls-tree", "-r", "--name-only", rev, root).splitlines() if n.endswith(".md")]
    return {n[len(root):]: git(path, "show", f"{rev}:{n}") for n in names}


def sections(markdown: str) -> list[tuple[str, str, list[str]]]:
    """(anchor, heading text, paragraphs) of each ## / ### section; code fences left out."""
    out, anchor, title, paragraphs, block, fenced = [], "", "", [], [], False
    for line in [*markdown.splitlines(), ""]:
        if CODE_FENCE.match(line.strip()):
            fenced = not fenced
            continue
        heading = None if fenced else HEADING.match(line)
        if fenced:
            continue
        if heading or not line.strip():
            if block:
                paragraphs.append(" ".join(block))
                block = []
        if heading:
            out.append((anchor, title, paragraphs))
            anchor, title, paragraphs = heading.group(3), heading.group(2), []
        elif line.strip() and not line.startswith("#") and not MARKUP.match(line.strip()):
            block.append(line.strip())
    out.append((anchor, title, paragraphs))
    return [(a, t, [p for p in ps if len(p) >= 20]) for a, t, ps in out if a]


def ranks(analyser, chunks: list[tuple[str, str]], questions: list[tuple[str, str]]) -> list[int | None]:
    """Each question's rank (1-based) of its first gold chunk within 10, else None; chunks are
    (section key, text), questions (section key, text)."""
    _, vocab, matrix = build_index(analyser.many([t for _, t in chunks]), 1.5, 0.75)
    keys = [k for k, _ in chunks]
    out = []
    for key, tokens in zip([k for k, _ in questions], analyser.many([q for _, q in questions])):
        ids, counts = query_vector(tokens, vocab)
        scores = np.asarray(matrix[:, ids] @ np.array(counts)).ravel() if ids else np.zeros(len(chunks))
        top = [i for i in np.lexsort((np.arange(len(chunks)), -scores))[:10] if scores[i] > 0]
        out.append(next((r for r, i in enumerate(top, 1) if keys[i] == key), None))
    return out


def figures(found: list[int | None]) -> tuple[float, float]:
    """(fail@5, MRR@10)."""
    return (float(np.mean([r is None or r > 5 for r in found])),
            float(np.mean([1 / r if r else 0.0 for r in found])))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--git", required=True, help="a checkout or mirror of the FastAPI repository")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--questions", type=int, default=1000,
                    help="sections asked at most (the same in every language; a seeded sample when fewer)")
    args = ap.parse_args()
    print(load_line(), flush=True)
    by_language = {code: pages(args.git, args.rev, code) for code in LANGUAGES}
    common = sorted(set.intersection(*(set(p) for p in by_language.values())))
    parsed = {code: {page: sections(by_language[code][page]) for page in common} for code in LANGUAGES}
    shared = set.intersection(*({(page, a) for page, s in parsed[code].items() for a, _, ps in s if ps}
                                for code in LANGUAGES))
    asked = random.Random(42).sample(sorted(shared), min(args.questions, len(shared)))
    print(f"{len(common)} pages in every language; {len(shared)} sections with text in every language, "
          f"{len(asked)} asked", flush=True)
    bm25 = complete({"corpus": {"path": "unused"}, "questions": {"sets": {"Q": "unused.jsonl"}}})["bm25"]
    rows, failed = {}, {}
    for code in LANGUAGES:
        bodies = [by_language[code][page] for page in common]
        documents = documents_by_language(bodies)
        found = found_language(letters_by_script(bodies), documents)
        chunks = [((page, a), p) for page in common for a, _, ps in parsed[code][page] for p in ps]
        titles = {(page, a): t for page in common for a, t, _ in parsed[code][page]}
        questions = [(key, titles[key]) for key in asked]
        record = language(found["language"])
        analyser = make_tokenizer({**bm25, "analyser": record.analyser}, 1)
        sample = questions[0][1]
        own = figures(ranks(analyser, chunks, questions))
        plain = figures(ranks(make_tokenizer({**bm25, "analyser": "identifiers"}, 1), chunks, questions))
        rows[code] = own
        failed[code] = found["language"] != code
        share = found["documents"].get(found["language"], 0)
        print(f"| {code} | {found['language']} ({share:.0%} of {len(bodies)} pages) | {record.analyser} | "
              f"{sample} -> {' '.join(analyser.many([sample])[0])} | {len(chunks):,} | {len(questions)} | "
              f"{own[0]:.3f} / {own[1]:.3f} | {plain[0]:.3f} / {plain[1]:.3f} |", flush=True)
    print("(columns: language | found as (share of the pages) | analyser | a question -> its tokens | chunks | "
          "questions | fail@5 / MRR@10 | the same by identifiers)")
    wrong = sorted(code for code, bad in failed.items() if bad)
    target("languages found in FastAPI's translated docs", f"{len(LANGUAGES) - len(wrong)} of {len(LANGUAGES)} right"
           + (f" (wrong: {', '.join(wrong)})" if wrong else ""), "all", not wrong)
    for code in ("ja", "zh"):
        target(f"BM25 fail@5 on FastAPI's headings, {code} vs en", f"{rows[code][0]:.3f} vs {rows['en'][0]:.3f}",
               "<= English's", rows[code][0] <= rows["en"][0])


if __name__ == "__main__":
    main()
