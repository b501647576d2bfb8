"""anthropic: the Messages API through the official SDK, the document as a cached system block.

The SDK (over a second to import) is loaded on the first call: a document answered from the
store never pays for it.
"""
from __future__ import annotations

import functools
import os

from ..errors import InputError
from .base import AttemptFailed, Backend, CallResult, sdk_call, usage_dict


class AnthropicBackend(Backend):
    name = "anthropic"

    def __init__(self, settings: dict):
        """`settings`: contexts.llm, checked and completed by the config schema."""
        self.model, self.max_tokens, self.temperature = settings["model"], settings["max_tokens"], settings["temperature"]
        self.api_key = os.environ.get(settings["api_key_env"])
        if not self.api_key:
            raise InputError(f"llm backend 'anthropic': environment variable {settings['api_key_env']} is not set")
        self.base_url = settings["base_url"] or None
        self.timeout_s = settings["timeout_s"]

    @functools.cached_property
    def sdk(self):
        import anthropic
        return anthropic

    @functools.cached_property
    def client(self):
        return self.sdk.Anthropic(base_url=self.base_url, api_key=self.api_key, max_retries=0,
                                  timeout=self.timeout_s)

    def identity(self) -> dict:
        return {"backend": self.name, "model": self.model, "max_tokens": self.max_tokens,
                "temperature": self.temperature}

    def call(self, system: str, user: str, doc: dict, chunk: dict) -> CallResult:
        extra = {} if self.temperature is None else {"temperature": self.temperature}
        response, duration_ms = sdk_call(self.sdk, str(self.client.base_url), lambda: self.client.messages.create(
            model=self.model, max_tokens=self.max_tokens,
            system=[{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            messages=[{"role": "user", "content": user}], **extra))
        raw = response.model_dump(mode="json")
        text = "".join(b.text for b in response.content if getattr(b, "type", "") == "text")
        if not text.strip():
            raise AttemptFailed("empty", f"no text (stop_reason {response.stop_reason})", raw)
        u = response.usage
        return CallResult(
            context=text.strip(), raw=raw,
            usage=usage_dict(input_tokens=u.input_tokens, output_tokens=u.output_tokens,
                             cache_creation_input_tokens=u.cache_creation_input_tokens,
                             cache_read_input_tokens=u.cache_read_input_tokens),
            cost_usd=None, model=response.model, duration_ms=duration_ms, num_turns=1)
