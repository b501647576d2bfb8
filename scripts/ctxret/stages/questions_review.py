"""questions_review: a generated question set's review (`make review-questions`): the marks file,
each question with its gold chunk's text and `accepted` (null until a person sets it true or
false; marks already set are kept: ctxret.importers.review_marks reads them), and a page."""
import html
from pathlib import Path

from ctxret.fileio import read_jsonl, write_jsonl, write_text
from ctxret.importers import review_marks
from ctxret.runtime.stage_runner import run_rule


def marked(chunk: str, passage: str) -> str:
    """The chunk's text as HTML, its gold passage marked."""
    return html.escape(chunk).replace(html.escape(passage), f"<mark>{html.escape(passage)}</mark>", 1)


MARKS = {None: "not reviewed", True: "accepted", False: "rejected"}  # as the page shows `accepted`


def questions_review(input, output, params, **_) -> None:
    """The review of a generated set: the marks file (each question with its gold chunk's text and
    `accepted`, null until a person sets it true or false; marks already set are kept) and a page."""
    chunks = {c["chunk_id"]: c for c in read_jsonl(input.chunks)}
    marks = review_marks(params.review_file)
    rows = [{"id": q["id"], "accepted": marks.get(q["id"]), "kind": q["kind"], "question": q["question"],
             "gold_passage": q["gold_passage"], "gold_chunk": chunks[q["source_chunk"]]["text"]}
            for q in read_jsonl(input.set)]
    write_jsonl(Path(params.review_file), rows)
    reviewed = sum(r["accepted"] is not None for r in rows)
    cells = "".join(f"<tr><td>{html.escape(r['id'])}<td>{MARKS[r['accepted']]}<td>{html.escape(r['kind'])}"
                    f"<td>{html.escape(r['question'])}<td>{marked(r['gold_chunk'], r['gold_passage'])}</tr>"
                    for r in rows)
    write_text(output.page, f"<!doctype html><meta charset=utf-8><title>Review {params.set_name}</title>"
                            f"<h1>Generated set {html.escape(params.set_name)}: {len(rows)} questions, {reviewed} reviewed</h1>"
                            f"<p>Set <code>accepted</code> to true or false in {html.escape(params.review_file)}.</p>"
                            f"<table><tr><th>id<th>accepted<th>kind<th>question<th>gold chunk (passage marked)</tr>"
                            f"{cells}</table>\n")
    print(f"set {params.set_name}: {len(rows)} questions, {reviewed} reviewed "
          f"({sum(r['accepted'] is True for r in rows)} accepted); marks in {params.review_file}, page {output.page}")


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
