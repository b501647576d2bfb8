"""claude-cli: `claude -p` in a fresh empty directory, without tools, settings or session.

The document goes once, as the system prompt (`--system-prompt`, or `--system-prompt-file` when
it is longer than one command-line argument may be), the user message on stdin; the answer
comes back as one JSON object (`--output-format json`). Billing follows the CLI's login, so
the API key is stripped from its environment by default. The CLI runs in the job's own process
group: whatever ends the job's group (kill -9 of the workflow, Ctrl-C, scancel) ends the call,
so no paid call outlives a killed run with its answer lost.
"""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ctxret.contexts.llm.base import (USAGE_KEYS, AttemptFailed, Backend, CallResult, Unreachable, problem_line,
                                      read_counts, short)
from ctxret.errors import InputError

# contexts.llm's settings for this backend, as JSON Schema (the one home of their defaults)
SETTINGS = {"properties": {
    "executable": {"type": "string", "minLength": 1, "default": "claude",
                   "description": "the claude CLI (a name on PATH or a path)"},
    "model": {"type": "string", "minLength": 1, "default": "opus"},
    "effort": {"type": "string", "minLength": 1, "default": "high"},
    "strip_env": {"type": "array", "items": {"type": "string"},
                  "default": ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "QDRANT_API_KEY", "CLAUDECODE"],
                  "description": "variables removed from the CLI's environment (ANTHROPIC_API_KEY: bill the CLI's "
                                 "login, not a key; the other backends' and Qdrant's keys: the CLI never needs them; "
                                 "CLAUDECODE: a Claude Code session refuses to start another)"},
    "timeout_s": {"type": "number", "exclusiveMinimum": 0, "default": 600}}}

MAX_ARG_BYTES = 131072  # Linux MAX_ARG_STRLEN: one command-line argument, its final NUL included
RATE_LIMIT = re.compile(r"rate.?limit|\b429\b|usage limit|hit your limit", re.IGNORECASE)
REFUSED = re.compile(r"\b40[13]\b|authenticat|invalid.{0,20}api.?key|not logged in|/login|unauthori[sz]ed|forbidden",
                     re.IGNORECASE)


class ClaudeCliBackend(Backend):
    name = "claude-cli"

    def __init__(self, settings: dict):
        """`settings`: contexts.llm, checked and completed by the config schema."""
        found = shutil.which(settings["executable"])
        if found is None:
            raise InputError(f"llm backend 'claude-cli': executable {settings['executable']!r} not found "
                             f"(or not executable); set contexts.llm.executable to the claude CLI's path")
        self.executable = os.path.abspath(found)
        self.model, self.effort, self.timeout_s = settings["model"], settings["effort"], settings["timeout_s"]
        self.strip_env = list(settings["strip_env"])

    def identity(self) -> dict:
        return {"backend": self.name, "model": self.model, "effort": self.effort}

    def argv(self, system_prompt: list[str]) -> list[str]:
        return [self.executable, "-p", "--safe-mode", "--setting-sources", "project",
                "--effort", self.effort, "--tools", "", "--no-session-persistence",
                "--output-format", "json", "--model", self.model, *system_prompt]

    def call(self, system: str, user: str, doc: dict, chunk: dict) -> CallResult:
        env = {k: v for k, v in os.environ.items() if k not in self.strip_env}
        cwd = tempfile.mkdtemp(prefix="ctxret-claude-")
        prompt_dir = None
        if len(system.encode("utf-8")) < MAX_ARG_BYTES:
            system_prompt = ["--system-prompt", system]
        else:  # outside the working directory, which stays empty
            prompt_dir = tempfile.mkdtemp(prefix="ctxret-claude-system-")
            path = Path(prompt_dir) / "system-prompt.txt"
            path.write_text(system, encoding="utf-8")
            system_prompt = ["--system-prompt-file", str(path)]
        try:
            returncode, stdout, stderr = run(self.argv(system_prompt), user, cwd, env, self.timeout_s)
        except FileNotFoundError:
            raise InputError(f"llm backend 'claude-cli': executable {self.executable} "
                             f"not found") from None
        finally:
            shutil.rmtree(cwd, ignore_errors=True)
            if prompt_dir:
                shutil.rmtree(prompt_dir, ignore_errors=True)
        return parse_output(stdout, returncode, stderr)


def run(argv: list[str], stdin: str, cwd: str, env: dict, timeout_s: float) -> tuple[int, str, str]:
    """(exit status, stdout, stderr); killed on timeout. In the caller's process group."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env=env)
    try:
        out, err = proc.communicate(stdin.encode("utf-8"), timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AttemptFailed("timeout", f"no answer within {timeout_s}s") from None
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def parse_output(stdout: str, returncode: int, stderr: str = "") -> CallResult:
    """A CallResult from `claude -p --output-format json` output; AttemptFailed otherwise."""
    try:
        obj = json.loads(stdout)
    except json.JSONDecodeError:
        obj = None
    if isinstance(obj, list):  # --verbose prints every event; the answer is the result event
        obj = next((e for e in reversed(obj) if isinstance(e, dict) and e.get("type") == "result"),
                   None)
    if not isinstance(obj, dict):
        if returncode != 0:
            raise AttemptFailed("exit_status", f"exit status {returncode}: "
                                               f"{short(stderr or stdout) or 'no output'}")
        raise AttemptFailed("not_json", f"stdout is not a JSON object: {short(stdout) or 'empty'}")
    result = obj.get("result")
    if obj.get("is_error") or str(obj.get("subtype", "success")).startswith("error"):
        text = " ".join(str(obj.get(k, "")) for k in ("result", "api_error_status", "error", "errors"))
        if REFUSED.search(text) and not RATE_LIMIT.search(text):
            raise Unreachable(f"the claude CLI is refused: {short(text.strip())}")
        cause = "rate_limit" if RATE_LIMIT.search(text) else "is_error"
        raise AttemptFailed(cause, short(f"{obj.get('subtype')}: {text.strip()}"), obj)
    if returncode != 0:
        raise AttemptFailed("exit_status", f"exit status {returncode}: {short(stderr)}", obj)
    if not isinstance(result, str) or not result.strip():
        raise AttemptFailed("empty", f"empty result (subtype {obj.get('subtype')})", obj)
    usage, problems = read_counts(obj.get("usage"), USAGE_KEYS, required=("input_tokens", "output_tokens"))
    cost = obj.get("total_cost_usd")
    if cost is not None and not dollars(cost):
        problems.append(f"total_cost_usd {str(cost)[:40]!r} is not an amount of dollars")
        cost = None
    models = obj.get("modelUsage")
    return CallResult(
        context=result.strip(),
        raw=obj,
        usage=usage,
        cost_usd=float(cost) if cost is not None else None,
        model=",".join(models) if isinstance(models, dict) else "",
        duration_ms=whole(obj.get("duration_ms")),
        num_turns=whole(obj.get("num_turns")),
        usage_problem=problem_line(problems),
    )


def dollars(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def whole(value) -> int:
    """A count the CLI reports beside the answer (duration, turns); 0 when it is not one."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
