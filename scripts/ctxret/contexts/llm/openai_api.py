"""openai: chat completions through the official SDK (OpenAI or any compatible server).

The document is the system message, first, so servers that cache prompt prefixes (OpenAI,
vLLM's prefix caching, llama.cpp) reuse it across a document's calls; `prompt_tokens` counts the
cached tokens too, so the uncached input is `prompt_tokens - cached`. The cached prefix is
`usage.prompt_tokens_details.cached_tokens` (OpenAI, vLLM), else llama.cpp's `timings.cache_n`;
a server that reports neither (Ollama) has its answers marked so (`cache_reported` False), and the
ledger says the cache is not reported instead of a share of 0. A server that states its context
window (`stated_window`: llama.cpp's GET /props, vLLM's and llama.cpp's GET /v1/models) gives the
estimate the window in place of the price row's.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request

from ctxret import secrets
from ctxret.contexts.llm.base import AttemptFailed, CallResult, SdkBackend, problem_line, read_counts

# contexts.llm's settings for this backend, as JSON Schema (the one home of their defaults)
SETTINGS = {"required": ["model", "base_url"], "properties": {
    "model": {"type": "string", "minLength": 1},
    "base_url": {"type": "string", "minLength": 1, "description": "the server, with /v1"},
    "max_tokens": {"type": "integer", "minimum": 1, "default": 1024},
    "temperature": {"type": "number", "default": 0},
    "api_key_env": {"type": "string", "minLength": 1, "default": "OPENAI_API_KEY",
                    "description": "unset: the key 'none' (local servers)"},
    "timeout_s": {"type": "number", "exclusiveMinimum": 0, "default": 300},
    "server_threads": {"type": "integer", "minimum": 0, "default": 0,
                       "description": "the cores a local server on this machine uses: each context job of the "
                                      "variant holds that many, so no embedding runs beside it (0: a remote service)"}}}


WINDOW_TIMEOUT_S = 10   # a server that does not answer in this long states no window


def _positive(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _get_json(url: str, api_key: str):
    """The JSON a GET of `url` answers, or None (unreachable, an HTTP error, not JSON)."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {api_key}"})
    try:
        with urllib.request.urlopen(request, timeout=WINDOW_TIMEOUT_S) as response:
            return json.loads(response.read())
    except (urllib.error.URLError, OSError, ValueError):
        return None


def stated_window(settings: dict) -> tuple[int, str] | None:
    """The context window (tokens) the server at settings' base_url states for one request, and
    where: llama.cpp's GET /props `default_generation_settings.n_ctx` (a slot's window), else the
    model of GET /v1/models (the one named `model`, else the only one listed): vLLM's
    `max_model_len`, llama.cpp's `meta.n_ctx_train`. None without a base_url or when it states none."""
    base = (settings.get("base_url") or "").rstrip("/")
    if not base:
        return None
    key = secrets.key(settings.get("api_key_env")) or "none"
    props = _get_json(f"{base.removesuffix('/v1')}/props", key)
    settled = props.get("default_generation_settings") if isinstance(props, dict) else None
    n = _positive(settled.get("n_ctx")) if isinstance(settled, dict) else None
    if n:
        return n, f"as {base.removesuffix('/v1')}/props states it (default_generation_settings.n_ctx)"
    listed = _get_json(f"{base}/models", key)
    models = [m for m in listed.get("data") or [] if isinstance(m, dict)] if isinstance(listed, dict) else []
    named = [m for m in models if m.get("id") == settings.get("model")] or (models if len(models) == 1 else [])
    for m in named:
        for field, value in (("max_model_len", m.get("max_model_len")),
                             ("meta.n_ctx_train", (m.get("meta") or {}).get("n_ctx_train"))):
            if _positive(value):
                return value, f"as {base}/models states it ({field} of {m.get('id')!r})"
    return None


class OpenAIBackend(SdkBackend):
    name = "openai"
    client_class = "OpenAI"
    fields = ("choices", "model")

    @staticmethod
    def load_sdk():
        import openai
        return openai

    def __init__(self, settings: dict):
        super().__init__(settings, secrets.key(settings["api_key_env"]) or "none")

    def params(self, system: str, user: str) -> dict:
        """One chunk's chat completion: the document as the system message, first; the chunk as the user message."""
        return dict(model=self.model, max_tokens=self.max_tokens, temperature=self.temperature,
                    messages=[{"role": "system", "content": system}, {"role": "user", "content": user}])

    def create(self, system: str, user: str):
        return self.client.chat.completions.create(**self.params(system, user))

    def result(self, response, duration_ms: int) -> CallResult:
        raw = response.model_dump(mode="json", warnings=False)
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content or "") if choice is not None else ""
        if not text.strip():
            reason = choice.finish_reason if choice is not None else "no choices"
            raise AttemptFailed("empty", f"no text (finish_reason {reason})", raw)
        usage, problems, reported = openai_usage(raw.get("usage"), raw.get("timings"))
        return CallResult(context=text.strip(), raw=raw, usage=usage, cost_usd=None, model=str(response.model),
                          duration_ms=duration_ms, num_turns=1, usage_problem=problem_line(problems),
                          cache_reported=reported)


def openai_usage(reported, timings=None) -> tuple[dict, list[str], bool]:
    """The usage of a chat completion as USAGE_KEYS, what is wrong with it (ctxret.contexts.llm.base),
    and whether the server reported its cached prefix (usage's cached_tokens, else llama.cpp's
    `timings.cache_n`)."""
    counts, problems = read_counts(reported, ("prompt_tokens", "completion_tokens"), required=("prompt_tokens", "completion_tokens"))
    details = reported.get("prompt_tokens_details") if isinstance(reported, dict) else None
    source, key = ((details, "cached_tokens") if isinstance(details, dict) and "cached_tokens" in details else
                   (timings, "cache_n") if isinstance(timings, dict) and "cache_n" in timings else ({}, None))
    found, more = read_counts(source, (key,)) if key else ({}, [])
    cached = min(found.get(key, 0), counts["prompt_tokens"])
    return ({"input_tokens": counts["prompt_tokens"] - cached, "output_tokens": counts["completion_tokens"],
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": cached}, problems + more, key is not None)
