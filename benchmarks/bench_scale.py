"""The whole workflow at the reference's size and at 10x (100x: its dry run), model stood in.

Builds a seeded synthetic corpus (88 documents of ~50 chunks, 100 questions: H 50 %, P 30 %,
G 20 %; times the scale; words drawn by Zipf's law from a fixed lexicon, `Lexicon`) and drives the real workflow through Snakemake, by target files, T1
only, every stage run for real (no paid one: no A1), the dense model stood in by a tiny random
XLM-R (tests/tiny_model.py: hidden size 32, a sentence-transformers directory), so the figures
measure the workflow, Kiwi, the index and the search rather than a model:

- dry run on the fresh state (and the number of jobs it plans);
- each stage, timed with its peak memory (the largest RSS of any process of that Snakemake
  invocation) and its jobs: prep, chunks, questions + qcheck, the variant, embedding (shard
  jobs + assembly + questions), index (Kiwi, BM25, the Qdrant engine), search + fusion + cut,
  score + pairs + report;
- the no-op rerun (must print "Nothing to be done") and a dry run on the complete state;
- with --dry-run-scales: only the fresh dry run of a bigger corpus (100x: 8,800 documents).

Targets: dry run and no-op rerun <= 10 s at 1x; at each larger scale the total time <= 1.2x the
data's growth (100x: <= 120x) and every step's peak memory <= the growth (at most linear) and
<= 3 GB; the dry run at 100x <= 30 s. Timings depend on the machine's load, printed with them.

    .venv/bin/python benchmarks/bench_scale.py [--scales 1 10] [--dry-run-scales 100] [--workdir DIR] [--keep]
"""
from __future__ import annotations

import argparse
import bisect
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from targets import load_line, target

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
DOCS, CHUNKS_PER_DOC, QUESTIONS = 88, 50, 100  # the reference (4,369 chunks)
SET_SHARES = {"H": 0.5, "P": 0.3, "G": 0.2}
SET_FILES = {"H": "questions-h.jsonl", "P": "questions-p.jsonl", "G": "questions-gap.jsonl"}
IDENTIFIERS = ["max.poll.interval.ms", "session.timeout.ms", "Idempotency-Key", "ERR_CONNECTION_RESET",
               "allkeys-lru", "x-dead-letter-exchange", "group_wait", "order-1003"]
TIME_LIMIT_S = 10.0       # dry run and no-op rerun at 1x
DRY_RUN_BIG_S = 30.0      # dry run at 100x
GROWTH_PER_SCALE = 1.2    # 10x the data may take at most 12x the time
PEAK_MB = 3000.0
LEXICON_WORDS = 500_000   # the synthetic language's words (Zipf-distributed)

# The stages, each run through Snakemake by its output files (under results/); None: every output.
STAGES = {
    "prep": ["docs.jsonl"],
    "chunks": ["chunks.jsonl"],
    "questions + qcheck": ["gold.json"],
    "variant": ["var-T1.jsonl"],
    "embed (stand-in model)": ["emb/T1-tiny.npy", "emb/q-tiny.npy"],
    "index": ["index/v_T1.json"],
    "search + fusion + cut": ["runs/tiny-T1.jsonl", "runs/bm25-T1.jsonl", "runs/htiny-T1.jsonl"],
    "score + pairs + report": None,
}


# ---------------------------------------------------------------- synthetic corpus

@dataclass
class Section:
    heading: str
    paragraphs: list[list[str]]  # sentences; a paragraph (410-680 chars) is one chunk


@dataclass
class Document:
    slug: str
    title: str
    sections: list[Section]

    def body(self) -> str:
        blocks = []
        for s in self.sections:
            blocks += [f"## {s.heading}", *(" ".join(p) for p in s.paragraphs)]
        return "\n\n".join(blocks) + "\n"

    def chunks(self) -> list[tuple[Section, int]]:
        return [(s, i) for s in self.sections for i in range(len(s.paragraphs))]

    def chunk_text(self, section: Section, i: int) -> str:
        """What qcheck searches (T1: title, section, the paragraph, the heading line when first)."""
        return "\n".join([self.title, f"## {section.heading}", " ".join(section.paragraphs[i])])


class Lexicon:
    """Korean-looking words (2-4 random Hangul syllables), drawn by Zipf's law (rank r with weight
    1/r): a text's vocabulary then grows as natural language's does (Heaps' law), a few thousand
    words at the reference's size and a few hundred thousand at 100x, not one new word per token."""

    def __init__(self, size: int, seed: int = 0):
        rng = random.Random(seed)
        self.words = ["".join(chr(0xAC00 + rng.randrange(11172)) for _ in range(rng.randint(2, 4)))
                      for _ in range(size)]
        self.cumulative = list(itertools.accumulate(1 / rank for rank in range(1, size + 1)))

    def draw(self, rng: random.Random) -> str:
        return self.words[bisect.bisect(self.cumulative, rng.random() * self.cumulative[-1])]


LEXICON = Lexicon(LEXICON_WORDS)


def word(rng: random.Random) -> str:
    return LEXICON.draw(rng)


def sentence(rng: random.Random) -> str:
    words = [word(rng) for _ in range(rng.randint(5, 9))]
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), f"`{rng.choice(IDENTIFIERS)}`")
    return " ".join(words) + "다."


def paragraph(rng: random.Random) -> list[str]:
    """Over 400 chars, so two never share an 800-char chunk; at most ~680, so never split."""
    target, out = rng.randint(410, 620), []
    while sum(len(s) + 1 for s in out) < target:
        out.append(sentence(rng))
    return out


def document(i: int, rng: random.Random) -> Document:
    sizes, left = [], CHUNKS_PER_DOC
    while left:
        sizes.append(min(left, rng.randint(3, 8)))
        left -= sizes[-1]
    sections = [Section(" ".join(word(rng) for _ in range(2)), [paragraph(rng) for _ in range(n)])
                for n in sizes]
    return Document(f"doc-{i:04d}", " ".join(word(rng) for _ in range(4)), sections)


def write_corpus(docs: list[Document], articles: Path) -> None:
    articles.mkdir(parents=True)
    for d in docs:
        (articles / f"{d.slug}.mdx").write_text(d.body(), encoding="utf-8")
        manifest = {"slug": d.slug, "title": d.title, "tags": ["synthetic"], "body": f"{d.slug}.mdx"}
        (articles / f"{d.slug}.json").write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")


# ---------------------------------------------------------------- synthetic questions

def set_sizes(n: int) -> dict[str, int]:
    sizes = {s: round(n * share) for s, share in SET_SHARES.items()}
    sizes["H"] += n - sum(sizes.values())
    return sizes


def question_id(prefix: str, number: int, n: int) -> str:
    return f"{prefix}{number:0{max(2, len(str(n)))}d}"


def overlap_question(passage: str, rng: random.Random) -> str:
    """An H question: some of the passage's own words."""
    words = [w for w in passage.removesuffix("다.").split() if not w.startswith("`")]
    return " ".join(rng.sample(words, min(3, len(words)))) + "은 어떻게 되나?"


def paraphrase(rng: random.Random) -> str:
    """A P question: the same gold passage, none of its words."""
    return " ".join(word(rng) for _ in range(4)) + "는 왜 그런가?"


def gap_question(doc: Document, rng: random.Random) -> dict:
    """A G question: its key term sits in another chunk of the gold document, not the gold one."""
    (section, i), (other, j) = rng.sample(doc.chunks(), 2)
    gold_text = doc.chunk_text(section, i)
    words = (w.rstrip("다.") for w in " ".join(other.paragraphs[j]).split() if not w.startswith("`"))
    term = next(w for w in words if len(w) >= 3 and w not in gold_text)
    passage = rng.choice(section.paragraphs[i])
    return {"question": f"{term} {overlap_question(passage, rng)}", "gold_slug": doc.slug,
            "gold_passage": passage, "key_terms": [term]}


def make_questions(docs: list[Document], n: int, rng: random.Random) -> dict[str, list[dict]]:
    sizes = set_sizes(n)
    h = []
    for number in range(1, sizes["H"] + 1):
        doc = rng.choice(docs)
        section, i = rng.choice(doc.chunks())
        passage = rng.choice(section.paragraphs[i])
        h.append({"id": question_id("h", number, sizes["H"]), "question": overlap_question(passage, rng),
                  "gold_slug": doc.slug, "gold_passage": passage})
    p = [{**q, "id": "p" + q["id"][1:], "question": paraphrase(rng)} for q in h[:sizes["P"]]]
    g = [{"id": question_id("g", number, sizes["G"]), **gap_question(rng.choice(docs), rng)}
         for number in range(1, sizes["G"] + 1)]
    return {"H": h, "P": p, "G": g}


def write_questions(sets: dict[str, list[dict]], folder: Path) -> dict[str, str]:
    folder.mkdir(parents=True)
    paths = {}
    for name, questions in sets.items():
        path = folder / SET_FILES[name]
        path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")
        paths[name] = str(path)
    return paths


def write_config(work: Path, question_paths: dict[str, str], **extra) -> Path:
    """Like tests/workflow.py's mini config; models stay the default config's e5 slot unless
    `extra` (more top-level config keys) says otherwise."""
    config = {
        "results": str(work / "results"),
        "store": str(work / "store"),
        "corpus": {"path": str(work / "corpus" / "articles"), "slugs": str(work / "corpus" / "slugs.txt")},
        "questions": {"sets": question_paths, "groups": {"HP": ["H", "P"], "G": ["G"]}, "gap_sets": ["G"]},
        "contexts": {"free": True, "llm": {"backend": ""}},
        "pairs": {"resamples": 10000},
        **extra,
    }
    path = work / "config.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    return path


# ---------------------------------------------------------------- running Snakemake

@dataclass
class Invocation:
    seconds: float
    peak_mb: float
    jobs: int
    output: str


@dataclass
class PlannedJob:
    rule: str
    input: list[str] = field(default_factory=list)
    output: list[str] = field(default_factory=list)


# Runs a command and writes the largest RSS (KiB) of its processes to a file. It is small and
# runs in its own process: a child forked from the benchmark itself would report the benchmark's
# own peak (Linux carries the parent's high-water mark across fork + exec).
PEAK_RSS_WRAPPER = ("import resource, subprocess, sys; rc = subprocess.run(sys.argv[2:]).returncode; "
                    "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); "
                    "sys.exit(rc)")


def snakemake(config: Path, log: Path, *args: str) -> Invocation:
    """Run Snakemake from the repository root, timed, with its peak memory."""
    peak = log.with_suffix(".maxrss")
    cmd = [sys.executable, "-c", PEAK_RSS_WRAPPER, str(peak),
           SNAKEMAKE, *args, "--cores", "2", "--configfile", str(config)]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    with open(log, "w", encoding="utf-8") as out:
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env)
        seconds = time.perf_counter() - start
    output = log.read_text(encoding="utf-8")
    if proc.returncode != 0:
        sys.exit(f"snakemake {' '.join(args)} failed ({proc.returncode}); log {log}:\n{output[-3000:]}")
    total = re.search(r"^total\s+(\d+)", output, re.MULTILINE)
    return Invocation(seconds, int(peak.read_text()) / 1024, int(total[1]) if total else 0, output)


def planned_jobs(dry_run_output: str) -> list[PlannedJob]:
    """The jobs of a dry run with their input and output files."""
    jobs: list[PlannedJob] = []
    for line in dry_run_output.splitlines():
        header = re.fullmatch(r"(?:local)?(?:rule|checkpoint) (\S+):", line)
        if header:
            jobs.append(PlannedJob(header[1]))
            continue
        key, _, files = line.strip().partition(": ")
        if jobs and key in ("input", "output"):
            getattr(jobs[-1], key).extend(files.split(", "))
    return jobs


# ---------------------------------------------------------------- the stand-in model

def stand_in_model(work: Path) -> dict:
    """A model slot for a tiny random XLM-R built under `work` (what the tests embed with).

    One thread: its shard jobs cost mostly the import of torch, so two share the 2 cores at once.
    """
    sys.path.insert(0, str(ROOT / "tests"))
    from tiny_model import build_tiny_xlmr
    path = build_tiny_xlmr(work / "tiny-xlmr")
    return {"tiny": {"backend": "sentence-transformers", "model": str(path), "max_length": 128,
                     "normalize": True, "batch_size": 64, "variants": ["T1"], "threads": 1,
                     "query_prefix": "", "passage_prefix": ""}}


# ---------------------------------------------------------------- measuring one scale

@dataclass
class ScaleResult:
    scale: int
    documents: int
    chunks: int
    set_sizes: dict[str, int]
    steps: dict[str, Invocation]


def build_inputs(scale: int, work: Path, **config) -> tuple[Path, dict[str, list[dict]], int]:
    """Corpus, questions and config (`config`: more keys) under `work`: (config, question sets, documents)."""
    rng = random.Random(scale)
    docs = [document(i, rng) for i in range(DOCS * scale)]
    write_corpus(docs, work / "corpus" / "articles")
    sets = make_questions(docs, QUESTIONS * scale, rng)
    return write_config(work, write_questions(sets, work / "corpus" / "questions"), **config), sets, len(docs)


def workflow_config(scale: int, work: Path) -> tuple[Path, dict[str, list[dict]], int]:
    return build_inputs(scale, work, variants=["T1"], contexts={"free": False, "llm": {"backend": ""}},
                        models=stand_in_model(work),
                        pairs={"primary": [{"a": "bm25:T1", "b": "htiny:T1"}], "resamples": 10000})


def measure(scale: int, work: Path) -> ScaleResult:
    config, sets, n_docs = workflow_config(scale, work)
    results, logs = work / "results", work / "logs"
    logs.mkdir()

    def run(name: str, *args: str) -> Invocation:
        return snakemake(config, logs / f"{name}.log", *args)

    steps = {"dry run (fresh)": run("dry-run-fresh", "-n")}
    for label, targets in STAGES.items():
        steps[label] = run(re.sub(r"\W+", "-", label), *(str(results / t) for t in targets or []))
    steps["no-op rerun"] = run("no-op")
    if "Nothing to be done" not in steps["no-op rerun"].output:
        sys.exit(f"the rerun was not a no-op; log {logs / 'no-op.log'}")
    steps["dry run (complete)"] = run("dry-run-complete", "-n")
    with open(results / "chunks.jsonl", encoding="utf-8") as f:
        chunks = sum(1 for _ in f)
    return ScaleResult(scale, n_docs, chunks, {s: len(q) for s, q in sets.items()}, steps)


def dry_run_only(scale: int, work: Path) -> None:
    config, sets, n_docs = workflow_config(scale, work)
    step = snakemake(config, work / "dry-run.log", "-n")
    print(f"\n{scale}x: {n_docs:,} documents (about {n_docs * CHUNKS_PER_DOC:,} chunks), "
          f"{sum(len(q) for q in sets.values()):,} questions; {load_line()}")
    print(f"  dry run (fresh): {step.jobs} jobs planned, {step.seconds:.1f} s, peak {step.peak_mb:.0f} MB")
    target(f"workflow: dry run, {scale}x", f"{step.seconds:.1f} s", f"<= {DRY_RUN_BIG_S:g} s",
           step.seconds <= DRY_RUN_BIG_S)


# ---------------------------------------------------------------- report

RUN_FOR_REAL = [*STAGES, "stages total"]
LIMITED_AT_1X = ["dry run (fresh)", "no-op rerun", "dry run (complete)"]


def rows(result: ScaleResult) -> dict[str, tuple[int, float, float]]:
    """{step: (jobs, seconds, peak MB)}, with the stages' total."""
    out = {label: (s.jobs, s.seconds, s.peak_mb) for label, s in result.steps.items()}
    stages = [result.steps[label] for label in STAGES]
    out["stages total"] = (sum(s.jobs for s in stages), sum(s.seconds for s in stages),
                           max(s.peak_mb for s in stages))
    return out


def print_scale(result: ScaleResult) -> None:
    sizes = ", ".join(f"{s} {n}" for s, n in result.set_sizes.items())
    print(f"\n{result.scale}x: {result.documents:,} documents, {result.chunks:,} chunks, "
          f"{sum(result.set_sizes.values()):,} questions ({sizes}); {load_line()}")
    print(f"  {'step':<26} {'jobs':>6} {'time s':>8} {'s/job':>6} {'peak MB':>8}")
    for label, (jobs, seconds, peak) in rows(result).items():
        per_job = f"{seconds / jobs:.2f}" if label in RUN_FOR_REAL else "-"  # dry runs: jobs planned
        print(f"  {label:<26} {jobs:>6} {seconds:>8.1f} {per_job:>6} {peak:>8.0f}")
    print("  (peak MB: the largest single process of that Snakemake invocation)")
    if result.scale == 1:
        for label in LIMITED_AT_1X:
            seconds = result.steps[label].seconds
            target(f"workflow overhead: {label}, 1x", f"{seconds:.1f} s", f"<= {TIME_LIMIT_S:g} s",
                   seconds <= TIME_LIMIT_S)


def print_ratios(small: ScaleResult, big: ScaleResult) -> None:
    factor = big.scale / small.scale
    limit = GROWTH_PER_SCALE * factor
    print(f"\n{big.scale}x / {small.scale}x (data x{factor:g}; targets: the stages' total time <= {limit:g}x, "
          f"every step's peak memory <= {factor:g}x, i.e. at most linear)")
    print(f"  {'step':<26} {'time':>8} {'peak MB':>8}")
    small_rows = rows(small)
    time_ratios, memory_ratios = {}, {}
    for label, (_, seconds, peak) in rows(big).items():
        _, seconds_small, peak_small = small_rows[label]
        time_ratios[label], memory_ratios[label] = seconds / seconds_small, peak / peak_small
        print(f"  {label:<26} {time_ratios[label]:>7.1f}x {memory_ratios[label]:>7.1f}x")
    total = time_ratios["stages total"]
    target(f"workflow {big.scale}x / {small.scale}x: time", f"{total:.1f}x", f"<= {limit:g}x", total <= limit)
    worst = max(memory_ratios, key=memory_ratios.get)
    target(f"workflow {big.scale}x / {small.scale}x: peak memory", f"worst {memory_ratios[worst]:.1f}x ({worst})",
           f"<= {factor:g}x", memory_ratios[worst] <= factor)
    peak = max(s.peak_mb for s in big.steps.values())
    target(f"workflow {big.scale}x: peak memory", f"{peak:.0f} MB", f"<= {PEAK_MB:g} MB", peak <= PEAK_MB)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[1, 10],
                    help="multiples of the reference (88 documents, ~4,400 chunks, 100 questions)")
    ap.add_argument("--dry-run-scales", type=int, nargs="*", default=[100],
                    help="scales whose fresh dry run alone is measured")
    ap.add_argument("--workdir", type=Path, help="where to build (default: a new temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep the corpora, configs, results and logs")
    args = ap.parse_args()
    root = args.workdir or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    print(f"{os.cpu_count()} cores, {load_line()}; work directory {root}")
    results = []
    for scale in sorted(args.scales):
        work = root / f"x{scale}"
        if work.exists():
            sys.exit(f"{work} exists: remove it or choose another --workdir")
        work.mkdir(parents=True)
        results.append(measure(scale, work))
        print_scale(results[-1])
    for big in results[1:]:
        print_ratios(results[0], big)
    for scale in args.dry_run_scales:
        work = root / f"x{scale}-dry"
        work.mkdir(parents=True)
        dry_run_only(scale, work)
    if args.keep:
        print(f"\nkept {root}")
    else:
        for name in [f"x{r.scale}" for r in results] + [f"x{s}-dry" for s in args.dry_run_scales]:
            shutil.rmtree(root / name)
        if not args.workdir:
            root.rmdir()


if __name__ == "__main__":
    main()
