"""openai: chat completions through the official SDK (OpenAI or any compatible server).

The document is the system message, first, so servers that cache prompt prefixes (OpenAI,
vLLM's prefix caching, llama.cpp) reuse it across a document's calls; `prompt_tokens` counts the
cached tokens too, so the uncached input is `prompt_tokens - cached`. The cached prefix is
`usage.prompt_tokens_details.cached_tokens` (OpenAI, vLLM), else llama.cpp's `timings.cache_n`;
a server that reports neither (Ollama) has its answers marked so (`cache_reported` False), and the
ledger says the cache is not reported instead of a share of 0.
"""
from __future__ import annotations

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
