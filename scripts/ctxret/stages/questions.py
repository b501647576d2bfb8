"""questions: every question set into one canonical file that everything downstream reads (one
spelling per question, in config order, each marked `generated` true or false), and a record of
what was read (question-sets.json).

The workflow reruns this stage when the sets' fingerprints change (ctxret.questions.sets), not when
a file is only touched or reformatted: then nothing reruns at all.
"""
import os
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

from ctxret.fileio import iter_jsonl, sha256_file, write_json, write_text
from ctxret.importers import review_marks, set_files
from ctxret.languages import AUTO, documents_by_language, found_language, letters_by_script
from ctxret.presentation.pages import log_warnings
from ctxret.questions.sets import canonical_lines, content_sha256, gold_kind, read_question_sets
from ctxret.runtime.stage_runner import run_rule


def file_record(path: str) -> dict:
    """A source file as the stage read it: path, sha256 and modification time (UTC)."""
    if not Path(path).is_file():
        return {"path": path, "sha256": None, "mtime": None}
    mtime = datetime.fromtimestamp(os.stat(path).st_mtime, timezone.utc).isoformat(timespec="seconds")
    return {"path": path, "sha256": sha256_file(path), "mtime": mtime}


def sample_warnings(name: str, spec: dict, size: int) -> list[dict]:
    """A sample above the set's size keeps every question: legal, but not what was asked for."""
    return [{"kind": "sample", "set": name, "sample": spec["sample"], "size": size}] if spec["sample"] > size else []


def set_language(texts: list[str]) -> dict:
    """The language of a set's questions, found as a corpus's is (each question a document)."""
    return found_language(letters_by_script(texts), documents_by_language(texts))


def language_warnings(name: str, found: dict, corpus_language: str) -> list[dict]:
    """Questions in another language than the corpus's (the plan's, found or stated; auto: not
    found, nothing to compare): BM25 still analyses them as the corpus."""
    language = found["language"]
    if language in (corpus_language, "und") or corpus_language == AUTO:
        return []
    return [{"kind": "question_language", "set": name, "language": language,
             "share": found["documents"][language], "corpus": corpus_language}]


def review_counts(spec: dict) -> dict:
    """A generated set's review: its mode (required: only the accepted are scored) and how many of
    the questions generated a person accepted, rejected or has not reviewed yet."""
    marks = review_marks(spec["generate"]["review_file"])
    ids = [obj.get("id") for _, obj in iter_jsonl(spec["path"])]
    accepted = sum(marks.get(i) is True for i in ids)
    rejected = sum(marks.get(i) is False for i in ids)
    return {"mode": spec["generate"]["review"], "accepted": accepted, "rejected": rejected,
            "not_reviewed": len(ids) - accepted - rejected}


def set_records(sets: dict[str, dict], corpus: dict, questions: list[dict], reports: dict) -> dict:
    """Per set: format, question count per gold kind, content sha256, source files, import report,
    the questions' language, a generated set's review counts and, when there are any, warnings (the report
    carries them)."""
    records = {}
    for name, spec in sets.items():
        if name not in reports:   # a generated set not written yet (make generate-questions sizes it from these)
            continue
        kinds = dict(Counter(gold_kind(q) for q in questions if q["set"] == name))
        found = set_language([q["question"] for q in questions if q["set"] == name])
        warnings = [*sample_warnings(name, spec, sum(kinds.values())),
                    *language_warnings(name, found, corpus.get("language", AUTO))]
        generated = {"generated": True, "review": review_counts(spec)} if spec["format"] == "generated" else {}
        records[name] = {"format": spec["format"], **generated,
                         "kinds": kinds, "content_sha256": content_sha256(questions, name),
                         "files": [file_record(p) for p in set_files(spec, corpus)], "report": reports[name],
                         "language": found["language"],
                         **({"warnings": warnings} if warnings else {})}
    return records


def questions(input, output, params, **_) -> None:
    """The `questions` stage: validate every set, write the canonical file and what was read."""
    sets, corpus = dict(params.sets), dict(params.corpus)
    # as the workflow's parse read them (which stopped on the gold problems unless questions.strict is
    # off: qcheck then reports them)
    questions, reports, _ = read_question_sets(sets, corpus, params.store)
    records = set_records(sets, corpus, questions, reports)
    # every question marked generated or not (never merged silently: gold.json and the explorer carry it on)
    write_text(output.questions, canonical_lines(
        [{**q, "generated": sets[q["set"]]["format"] == "generated"} for q in questions], ("generated",)))
    write_json(output.sets, records)
    for name, r in records.items():
        files = ", ".join(f"{f['path']} (sha256 {f['sha256']})" for f in r["files"])
        print(f"set {name} ({r['format']}): {sum(r['kinds'].values())} questions, gold "
              f"{', '.join(f'{k} {n}' for k, n in r['kinds'].items())}, from {files}, "
              f"content sha256 {r['content_sha256']}")
        if "review" in r:
            print(f"  review {r['review']['mode']}: {r['review']['accepted']} accepted, {r['review']['rejected']} "
                  f"rejected, {r['review']['not_reviewed']} not reviewed")
        for line in r["report"]:
            print(f"  {line}")
        log_warnings(r.get("warnings", []))


if __name__ == "__main__":
    run_rule(snakemake, globals())  # noqa: F821 (Snakemake's script global)
