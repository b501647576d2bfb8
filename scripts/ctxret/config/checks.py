"""Settings the schema allows but that would destroy or fake results, found while the workflow
is read: each problem is (dotted key, what is wrong and what to do), for the config's file and line.

- `results` and `store` must be non-empty, outside each other and outside the checkout's source
  folders: deleting results/ must never delete a paid answer, and no output may land in `/` or
  among the code.
- `results` and `store` must neither hold, equal nor sit inside an input (corpus, question files,
  prompt, prices, slug list), nor hold the checkout, nor be a system folder (/, /etc, /usr, the
  home folder, ...), nor be (or sit under) a regular file: Snakemake deletes a job's outputs before
  it runs, so an output path that is an input's would delete the user's file.
- `results` must not hold another corpus's run: a run or report there would mix two experiments.
- `corpus.path` must not be empty: it would read the working directory (and results in it) as the
  corpus. The settings of one format (corpus.slugs, corpus.follow_links_out,
  corpus.html) only with that format.
- `score.ks` must not pass `search.top_k`: a figure at a cut-off beyond the runs' depth means nothing.
- a chunker's overlap must stay below its window: a fixed window that repeats all of itself
  never moves on.
- `chunking.t1_template` may use only {title}, {section} and {body}: any other field would be
  written literally into every T1 text.
- a fusion preset must be able to score: k 0 with ranks from 0 divides by zero, and weights all 0
  fuse nothing.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

SOURCE_FOLDERS = ("scripts", "rules", "config", "envs", "tests", "benchmarks", "profiles", "questions",
                  "data", "docs", ".git")


# Folders no output may be (the home folder and its parents too), and trees no output may be in
SYSTEM_FOLDERS = ("/", "/home", "/root", "/tmp", "/var", "/var/tmp", "/opt", "/srv", "/mnt", "/media", "/run",
                  "/Users", "/Volumes", "/private", "/private/tmp", "/private/var")
SYSTEM_TREES = ("/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/boot", "/dev", "/proc", "/sys",
                "/System", "/Library", "/Applications", "/private/etc")


def inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def system_problem(path: Path) -> str | None:
    """Why `path` (resolved) is no place for outputs, if it is a system folder or in one."""
    home = Path(os.path.expanduser("~")).resolve()
    if path in {Path(p).resolve() for p in SYSTEM_FOLDERS} | {home, *home.parents}:
        return "is a system folder" + (" (the home folder)" if path == home else "")
    tree = next((t for t in SYSTEM_TREES if inside(path, Path(t).resolve())), None)
    return f"is inside the system folder {tree}" if tree else None


def file_problem(path: Path) -> str | None:
    """Why `path` cannot be a folder: it, or the nearest of its parents that exists, is not one."""
    existing = next(p for p in (path, *path.parents) if p.exists() or p == p.parent)
    if existing.is_dir():
        return None
    return "is a file, not a folder" if existing == path else f"is under {str(existing)!r}, which is a file"


def input_problems(results: str, store: str, inputs: dict[str, str], checkout: Path) -> list[tuple[str, str]]:
    """`results` and `store` against the inputs (dotted key: path as given) and the checkout: an
    output folder that holds, is or sits inside an input, or that holds the checkout, would have
    Snakemake (or `rm -r results`) delete what the user gave."""
    problems = []
    for key, given in (("results", results), ("store", store)):
        path = Path(given).resolve()
        if inside(checkout.resolve(), path):
            problems.append((key, f"{given!r} holds the checkout ({checkout}); name a folder of its own"))
            continue
        for input_key, input_path in inputs.items():
            source = Path(input_path).resolve()
            relation = ("is" if path == source else "holds" if inside(source, path) else
                        "is inside" if inside(path, source) else None)
            if relation:
                why = ("its files would be read as part of the input" if relation == "is inside" else
                       f"Snakemake deletes an output before writing it, and deleting {key} would delete the input")
                problems.append((key, f"{given!r} {relation} {input_key} ({input_path}): {why}; name a folder of "
                                      f"its own, outside every input"))
                break
    return problems


def place_problems(results: str, store: str, checkout: Path) -> list[tuple[str, str]]:
    """Where `results` and `store` point, checked against each other and the checkout."""
    if not results.strip():
        return [("results", "is empty: every output would be written from / down; name a directory")]
    if not store.strip():
        return [("store", "is empty: name a directory outside results (e.g. .ctxret-store)")]
    out, kept, root = Path(results).resolve(), Path(store).resolve(), checkout.resolve()
    unusable = [(key, f"{given!r} {why}; name a folder of its own for this experiment")
                for key, path, given in (("results", out, results), ("store", kept, store))
                for why in [system_problem(path) or file_problem(path)] if why]
    if unusable:
        return unusable
    problems = []
    if inside(kept, out):
        problems.append(("store", f"{store!r} is {'results' if kept == out else 'inside results'} ({results!r}): "
                                  f"deleting results would delete every paid answer and vector; put it outside"))
    elif inside(out, kept):
        problems.append(("results", f"{results!r} is inside the store ({store!r}); put it outside"))
    for key, path, given in (("results", out, results), ("store", kept, store)):
        if path == root:
            problems.append((key, f"{given!r} is the checkout itself; name a directory of its own"))
        for folder in SOURCE_FOLDERS:
            if inside(path, root / folder):
                problems.append((key, f"{given!r} is inside the checkout's {folder}/; name a directory of its own"))
    return problems


def other_corpus_problems(results: str, corpus: dict) -> list[tuple[str, str]]:
    """`results` already holds the run of another corpus (its plan.json names it): a run or a
    report (`snakemake --report`) over it would mix two experiments."""
    recorded = Path(results) / "plan.json"
    try:
        then = json.loads(recorded.read_text(encoding="utf-8"))["corpus"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    if not isinstance(then, dict) or not isinstance(then.get("path"), str):
        return []
    if (Path(then["path"]).resolve(), then.get("format")) == (Path(corpus["path"]).resolve(), corpus["format"]):
        return []
    return [("results", f"{results!r} holds the results of another corpus ({then.get('format')} {then['path']}, "
                        f"{recorded}), not of {corpus['format']} {corpus['path']}: a run or report there would mix "
                        f"two experiments; give this experiment its own results folder (results: in its config)")]


def corpus_problems(corpus: dict) -> list[tuple[str, str]]:
    problems = []
    if not corpus["path"].strip():
        problems.append(("corpus.path", "is empty: name the corpus's folder or file"))
    if corpus["slugs"] and corpus["format"] != "manifests":
        problems.append(("corpus.slugs", f"a frozen slug list is for format manifests, not {corpus['format']!r}"))
    if corpus["follow_links_out"] and corpus["format"] != "files":
        problems.append(("corpus.follow_links_out", f"is for format files, not {corpus['format']!r}"))
    if corpus["html"]["content_selector"] and corpus["format"] != "files":
        problems.append(("corpus.html.content_selector", f"is for format files, not {corpus['format']!r}"))
    return problems


def cutoff_problems(ks: list[int], top_k: int) -> list[tuple[str, str]]:
    return [(f"score.ks.{i}", f"{k} is beyond search.top_k ({top_k}): the runs hold {top_k} chunks a question; "
                              f"raise search.top_k or lower the cut-off")
            for i, k in enumerate(ks) if k > top_k]


def overlap_problems(chunking: dict) -> list[tuple[str, str]]:
    return [(f"chunking.{name}.overlap", f"{chunking[name]['overlap']} is not below chunking.{name}.{window} "
                                         f"({chunking[name][window]}): each chunk would repeat all of the "
                                         f"previous one; lower the overlap")
            for name, window in (("fixed", "size"), ("recursive", "tokens"))
            if chunking[name]["overlap"] >= chunking[name][window]]


def fusion_problems(presets: dict) -> list[tuple[str, str]]:
    problems = []
    for name, preset in presets.items():
        if preset["k"] == 0 and preset["rank_base"] == 0:
            problems.append((f"fusion.presets.{name}.k", "0 with rank_base 0 divides by zero at the first rank; "
                                                         "raise k or set rank_base 1"))
        if not any(preset["weights"].values()):
            problems.append((f"fusion.presets.{name}.weights", "every weight is 0: nothing would be fused"))
    return problems


def template_problems(chunking: dict) -> list[tuple[str, str]]:
    unknown = sorted(set(re.findall(r"\{([^{}]*)\}", chunking["t1_template"])) - {"title", "section", "body"})
    return [("chunking.t1_template", f"{{{unknown[0]}}} is not a field of a chunk (only {{title}}, {{section}} and "
                                     f"{{body}}): it would be written as is into every T1 text")] if unknown else []


def variant_pair_problems(pairs: list[list[str]], variants: list[str]) -> list[tuple[str, str]]:
    """Each secondary pair names two different variants ctxret knows (`variants`); one this run
    lacks is left out of the family, a misspelt one is not."""
    problems = []
    for i, pair in enumerate(pairs):
        unknown = [v for v in pair if v not in variants]
        if unknown:
            problems.append((f"pairs.variant_pairs.{i}", f"{unknown[0]!r} is not a variant ({', '.join(variants)})"))
        elif pair[0] == pair[1]:
            problems.append((f"pairs.variant_pairs.{i}", f"compares {pair[0]} with itself; name two variants"))
    return problems
