"""Where `ancient()` hides an edge from Snakemake: the workflow builds, and checks, every output asked for.

Snakemake 9 decides what must run in two passes (dag.py, `DAG.update_needrun`): it examines the jobs
in order and, once one must run, masks every job downstream of it unexamined, assuming the second
pass (a walk from the jobs that must run) reaches them; but that walk does not cross an edge whose
files are all `ancient()` (snakemake/snakemake#4166). A job behind such an edge was then never
examined at all: `emb/A1-e5.npy` asked for beside `emb/T0-e5.npy` (A1's contexts wait for the
preregistration, an ancient input that T0's runs feed) was not built, and rule pairs, behind its
ancient plan.json, kept its old settings when a pairs setting reran plan, both with exit 0.

`mask_only_followed_edges` makes the mask follow only the edges the walk follows, so every other job
is examined on its own (missing output, changed params, …). `unbuilt` is the check a run makes as it
ends (rules/common.smk, `onsuccess`): every file asked for or written exists and is not marked incomplete.
"""
from __future__ import annotations

import inspect
import os
import textwrap

from snakemake import dag as snakemake_dag

MASK = "masked.update(self.bfs(self.depending, job))"
MASK_FOLLOWED = "masked.update(self.bfs(_FollowedEdges(self.depending), job))"


class _FollowedEdges:
    """`depending` without the edges whose files are all ancient (those the walk may not follow)."""

    def __init__(self, depending):
        self.depending = depending

    def __getitem__(self, job):
        return {job_: files for job_, files in self.depending[job].items()
                if not all(f.is_ancient for f in files)}


def mask_only_followed_edges() -> None:
    """Patch Snakemake's `DAG.update_needrun` (once per process): its mask follows `_FollowedEdges`.
    Raises RuntimeError when the Snakemake installed has no such line (another version: the pin in
    constraints.txt is the one this was written against)."""
    current = snakemake_dag.DAG.update_needrun
    if getattr(current, "masks_only_followed_edges", False):
        return
    source = textwrap.dedent(inspect.getsource(current))
    if source.count(MASK) != 1:
        raise RuntimeError("this Snakemake's DAG.update_needrun has no line to fix for ancient() edges "
                           "(ctxret.runtime.ancient_edges was written for the version pinned in constraints.txt)")
    namespace: dict = {}
    module_globals = {**vars(snakemake_dag), "_FollowedEdges": _FollowedEdges}
    exec(compile(source.replace(MASK, MASK_FOLLOWED), snakemake_dag.__file__, "exec"), module_globals, namespace)
    patched = namespace["update_needrun"]
    patched.masks_only_followed_edges = True
    snakemake_dag.DAG.update_needrun = patched


def unbuilt(workflow) -> list[str]:
    """One line for every file the run was asked for (its targets' outputs; for rule all, its
    inputs) or that a job of it wrote, that is missing or marked incomplete (a job killed while
    writing it), after a run Snakemake ends as successful. (A missing intermediate file that
    nothing asked for stays missing, as Snakemake leaves it.)"""
    dag = workflow.dag
    problems = []
    for job in {*dag.targetjobs, *dag.finished_jobs, *dag.needrun_jobs(exclude_finished=False)}:
        files = job.output if job.output else job.input   # rule all: what it asks for
        incomplete = set(map(str, workflow.async_run(workflow.persistence.incomplete(job)))) if job.output else set()
        for f in map(str, files):
            if not os.path.exists(f):
                problems.append(f"{f}: asked for but not built (rule {job.rule.name})")
            elif f in incomplete:
                problems.append(f"{f}: left incomplete by an interrupted job (rule {job.rule.name})")
    return sorted(problems)
