"""openai: chat completions through the official SDK (OpenAI or any compatible server).

The document is the system message, first, so servers that cache prompt prefixes (OpenAI,
vLLM's prefix caching) reuse it across a document's calls; `prompt_tokens` counts the cached
tokens too, so the uncached input is `prompt_tokens - cached_tokens`.
"""
from __future__ import annotations

from .. import secrets
from .base import AttemptFailed, CallResult, SdkBackend, usage_dict

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

    def create(self, system: str, user: str):
        return self.client.chat.completions.create(
            model=self.model, max_tokens=self.max_tokens, temperature=self.temperature,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}])

    def result(self, response, duration_ms: int) -> CallResult:
        raw = response.model_dump(mode="json")
        choice = response.choices[0] if response.choices else None
        text = (choice.message.content or "") if choice is not None else ""
        if not text.strip():
            reason = choice.finish_reason if choice is not None else "no choices"
            raise AttemptFailed("empty", f"no text (finish_reason {reason})", raw)
        u = response.usage
        details = getattr(u, "prompt_tokens_details", None) if u is not None else None
        cached = (details and details.cached_tokens) or 0
        return CallResult(
            context=text.strip(), raw=raw,
            usage=usage_dict(input_tokens=u and u.prompt_tokens - cached,
                             output_tokens=u and u.completion_tokens,
                             cache_read_input_tokens=cached),
            cost_usd=None, model=response.model, duration_ms=duration_ms, num_turns=1)
