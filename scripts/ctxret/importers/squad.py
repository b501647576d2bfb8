"""squad: a SQuAD-style JSON file (SQuAD 1.1, KorQuAD 1.0) as documents and questions.

Documents: one per title, its paragraphs in order joined by blank lines, exact duplicate
paragraphs dropped, no headings invented; each paragraph is a unit `<slug>#p<n>` (n from 0).
The slug is the title as the file spells it (Wikipedia's underscores), made safe as a file
name; the document's title reads underscores as spaces.
Questions: the gold passage is the run of sentences of the paragraph that holds the answer
span; a question is kept only when that passage occurs exactly once in its document, and its bootstrap
cluster is the source paragraph. Nothing is written back: the file is read as it is, at run time.
"""
from __future__ import annotations

from collections import Counter, defaultdict

from ctxret.errors import InputError
from ctxret.fileio import read_json
from ctxret.text.chunk_text import sentence_spans
from ctxret.text.documents import document, joined, safe_slug


def load(path: str) -> list[dict]:
    """The file's articles, checked for the SQuAD layout."""
    data = read_json(path)
    articles = data.get("data") if isinstance(data, dict) else None
    if not isinstance(articles, list):
        raise InputError(f"{path}: expected SQuAD JSON, an object with a 'data' list of articles")
    for i, article in enumerate(articles):
        if (not isinstance(article, dict) or not isinstance(article.get("title"), str)
                or not isinstance(article.get("paragraphs"), list)):
            raise InputError(f"{path}: data[{i}]: expected {{'title': str, 'paragraphs': [...]}}")
        for j, p in enumerate(article["paragraphs"]):
            if not isinstance(p, dict) or not isinstance(p.get("context"), str) or not isinstance(p.get("qas", []), list):
                raise InputError(f"{path}: data[{i}] ({article['title']}) paragraph {j}: expected "
                                 f"{{'context': str, 'qas': [...]}}")
    return articles


def _paragraphs_by_title(articles: list[dict]) -> dict[str, list[dict]]:
    by_title: dict[str, list[dict]] = defaultdict(list)
    for article in articles:
        by_title[article["title"].strip()].extend(article["paragraphs"])
    return by_title


def _slugs(titles: list[str], path: str) -> dict[str, str]:
    slugs: dict[str, str] = {}
    for title in titles:
        slug = safe_slug(title)
        clash = next((t for t, s in slugs.items() if s == slug), None)
        if clash is not None:
            raise InputError(f"{path}: titles {clash!r} and {title!r} map to the same slug {slug!r}")
        slugs[title] = slug
    return slugs


def documents(articles: list[dict], path: str) -> list[dict]:
    by_title = _paragraphs_by_title(articles)
    slugs = _slugs(list(by_title), path)
    docs = []
    for title, paragraphs in by_title.items():
        texts = list(dict.fromkeys(p["context"].strip() for p in paragraphs if p["context"].strip()))
        if not texts:
            continue
        body, units = joined([(t, {"id": f"{slugs[title]}#p{n}"}) for n, t in enumerate(texts)])
        docs.append(document(slugs[title], title.replace("_", " "), body, units=units))
    return docs


def answer_passage(context: str, start: int, end: int) -> str:
    """The run of sentences of `context` overlapping the answer span [start, end)."""
    spans = [(a, b) for a, b in sentence_spans(context, 0, len(context)) if a < end and b > start]
    return context[spans[0][0]:spans[-1][1]] if spans else context[start:end]


def occurrences(text: str, part: str) -> int:
    """How often `part` occurs in `text`, overlapping occurrences included."""
    count, at = 0, text.find(part)
    while at != -1:
        count, at = count + 1, text.find(part, at + 1)
    return count


def questions(articles: list[dict], path: str, kept: set[str]) -> tuple[list[dict], Counter]:
    """The questions of the kept documents (slugs) whose passage is unique in its document, and
    how many were dropped for that."""
    by_title = _paragraphs_by_title(articles)
    slugs = _slugs(list(by_title), path)
    bodies = {d["slug"]: (d["body"], {d["body"][u["start"]:u["end"]]: u["id"] for u in d["units"]})
              for d in documents(articles, path) if d["slug"] in kept}
    out, report = [], Counter()
    for title, paragraphs in by_title.items():
        if slugs[title] not in bodies:
            continue
        body, unit_of = bodies[slugs[title]]
        for p in paragraphs:
            context = p["context"].strip()
            offset = len(p["context"]) - len(p["context"].lstrip())
            for qa in p.get("qas", []):
                answer = (qa.get("answers") or [None])[0]
                qid = qa.get("id")
                if not isinstance(qid, str) or not qid.strip() or not isinstance(qa.get("question"), str):
                    raise InputError(f"{path}: {title}: a question without an 'id' or 'question'")
                if not isinstance(answer, dict) or not isinstance(answer.get("text"), str) \
                        or not isinstance(answer.get("answer_start"), int):
                    raise InputError(f"{path}: question {qid}: no answer with 'text' and 'answer_start'")
                start = answer["answer_start"] - offset
                end = start + len(answer["text"])
                if start < 0 or context[start:end] != answer["text"]:
                    raise InputError(f"{path}: question {qid}: answer_start {answer['answer_start']} does not "
                                     f"point at its text {answer['text']!r}")
                passage = answer_passage(context, start, end)
                if occurrences(body, passage) != 1:
                    report["passage not unique in its document"] += 1
                    continue
                out.append({"id": qid, "question": qa["question"].strip(), "gold_slug": slugs[title],
                            "gold_passage": passage, "cluster": unit_of[context]})
    return out, report
