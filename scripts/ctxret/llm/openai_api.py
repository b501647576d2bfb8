"""openai: chat completions through the official SDK (OpenAI or any compatible server).

The document is the system message, first, so servers that cache prompt prefixes (OpenAI,
vLLM's prefix caching) reuse it across a document's calls; `prompt_tokens` counts the cached
tokens too, so the uncached input is `prompt_tokens - cached_tokens`. The SDK is loaded on the
first call: a document answered from the store never pays for it.
"""
from __future__ import annotations

import functools
import os

from .base import AttemptFailed, Backend, CallResult, sdk_call, usage_dict


class OpenAIBackend(Backend):
    name = "openai"

    def __init__(self, settings: dict):
        """`settings`: contexts.llm, checked and completed by the config schema."""
        self.model, self.max_tokens, self.temperature = settings["model"], settings["max_tokens"], settings["temperature"]
        self.api_key = os.environ.get(settings["api_key_env"]) or "none"
        self.base_url = settings["base_url"]
        self.timeout_s = settings["timeout_s"]

    @functools.cached_property
    def sdk(self):
        import openai
        return openai

    @functools.cached_property
    def client(self):
        return self.sdk.OpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=0,
                               timeout=self.timeout_s)

    def identity(self) -> dict:
        return {"backend": self.name, "model": self.model, "max_tokens": self.max_tokens,
                "temperature": self.temperature}

    def call(self, system: str, user: str, doc: dict, chunk: dict) -> CallResult:
        response, duration_ms = sdk_call(self.sdk, self.base_url, lambda: self.client.chat.completions.create(
            model=self.model, max_tokens=self.max_tokens, temperature=self.temperature,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}]))
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
