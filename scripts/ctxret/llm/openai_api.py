"""openai: chat completions through the official SDK (OpenAI or any compatible server).

The document is the system message, first, so servers that cache prompt prefixes (OpenAI,
vLLM's prefix caching) reuse it across a document's calls; `prompt_tokens` counts the cached
tokens too, so the uncached input is `prompt_tokens - cached_tokens`.
"""
from __future__ import annotations

from .. import secrets
from ..usage import problem_line, read_counts
from .base import AttemptFailed, CallResult, SdkBackend

# contexts.llm's settings for this backend, as JSON Schema (the one home of their defaults)
SETTINGS = {"required": ["model", "base_url"], "properties": {
    "model": {"type": "string", "minLength": 1},
    "base_url": {"type": "string", "minLength": 1, "description": "the server, with /v1"},
    "max_tokens": {"type": "integer", "minimum": 1, "default": 1024},
    "temperature": {"type": "number", "default": 0},
    "api_key_env": {"type": "string", "minLength": 1, "default": "OPENAI_API_KEY",
                    "description": "unset: the key 'none' (local servers)"},
    "timeout_s": {"type": "number", "exclusiveMinimum": 0, "default": 300}}}


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
        usage, problems = openai_usage(raw.get("usage"))
        return CallResult(context=text.strip(), raw=raw, usage=usage, cost_usd=None, model=str(response.model),
                          duration_ms=duration_ms, num_turns=1, usage_problem=problem_line(problems))


def openai_usage(reported) -> tuple[dict, list[str]]:
    """The usage of a chat completion as USAGE_KEYS, and what is wrong with it (ctxret.usage)."""
    counts, problems = read_counts(reported, ("prompt_tokens", "completion_tokens"), required=("prompt_tokens", "completion_tokens"))
    details = reported.get("prompt_tokens_details") if isinstance(reported, dict) else None
    cached, more = read_counts(details if isinstance(details, dict) else {}, ("cached_tokens",))
    cached = min(cached["cached_tokens"], counts["prompt_tokens"])
    return ({"input_tokens": counts["prompt_tokens"] - cached, "output_tokens": counts["completion_tokens"],
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": cached}, problems + more)
