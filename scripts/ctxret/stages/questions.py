"""questions: every question set into one canonical file that everything downstream reads (one
spelling per question, in config order), and a record of what was read (question-sets.json).

The workflow reruns this stage when the sets' fingerprints change (ctxret.questionset), not when
a file is only touched or reformatted: then nothing reruns at all.
"""
from __future__ import annotations

import os
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

from ..fileio import sha256_file, write_json, write_text
from ..importers import set_files
from ..presentation.pages import log_warnings
from ..questionset import canonical_lines, content_sha256, gold_kind, load_question_sets


def file_record(path: str) -> dict:
    """A source file as the stage read it: path, sha256 and modification time (UTC)."""
    if not Path(path).is_file():
        return {"path": path, "sha256": None, "mtime": None}
    mtime = datetime.fromtimestamp(os.stat(path).st_mtime, timezone.utc).isoformat(timespec="seconds")
    return {"path": path, "sha256": sha256_file(path), "mtime": mtime}


def sample_warnings(name: str, spec: dict, size: int) -> list[dict]:
    """A sample above the set's size keeps every question: legal, but not what was asked for."""
    return [{"kind": "sample", "set": name, "sample": spec["sample"], "size": size}] if spec["sample"] > size else []


def set_records(sets: dict[str, dict], corpus: dict, questions: list[dict], reports: dict) -> dict:
    """Per set: format, question count per gold kind, content sha256, source files, import report
    and, when there are any, warnings (the report carries them)."""
    records = {}
    for name, spec in sets.items():
        kinds = dict(Counter(gold_kind(q) for q in questions if q["set"] == name))
        warnings = sample_warnings(name, spec, sum(kinds.values()))
        records[name] = {"format": spec["format"], "kinds": kinds, "content_sha256": content_sha256(questions, name),
                         "files": [file_record(p) for p in set_files(spec, corpus)], "report": reports[name],
                         **({"warnings": warnings} if warnings else {})}
    return records


def run(input, output, params, **_) -> None:
    """The `questions` stage: validate every set, write the canonical file and what was read."""
    sets, corpus = dict(params.sets), dict(params.corpus)
    questions, reports = load_question_sets(sets, corpus)
    records = set_records(sets, corpus, questions, reports)
    write_text(output.questions, canonical_lines(questions))
    write_json(output.sets, records)
    for name, r in records.items():
        files = ", ".join(f"{f['path']} (sha256 {f['sha256']})" for f in r["files"])
        print(f"set {name} ({r['format']}): {sum(r['kinds'].values())} questions, gold "
              f"{', '.join(f'{k} {n}' for k, n in r['kinds'].items())}, from {files}, "
              f"content sha256 {r['content_sha256']}")
        for line in r["report"]:
            print(f"  {line}")
        log_warnings(r.get("warnings", []))
