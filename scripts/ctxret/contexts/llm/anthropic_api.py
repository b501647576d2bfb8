"""anthropic: the Messages API through the official SDK, the document as a cached system block."""
from __future__ import annotations

from ctxret import secrets
from ctxret.contexts.llm.base import USAGE_KEYS, AttemptFailed, CallResult, SdkBackend, problem_line, read_counts
from ctxret.errors import InputError

# contexts.llm's settings for this backend, as JSON Schema (the one home of their defaults)
SETTINGS = {"required": ["model"], "properties": {
    "model": {"type": "string", "minLength": 1, "description": "e.g. claude-opus-5-5"},
    "max_tokens": {"type": "integer", "minimum": 1, "default": 1024},
    "temperature": {"type": ["number", "null"], "default": None, "description": "null: the API's default"},
    "api_key_env": {"type": "string", "minLength": 1, "default": "ANTHROPIC_API_KEY"},
    "base_url": {"type": "string", "default": "", "description": "empty: the SDK's default"},
    "timeout_s": {"type": "number", "exclusiveMinimum": 0, "default": 300}}}


class AnthropicBackend(SdkBackend):
    name = "anthropic"
    client_class = "Anthropic"
    fields = ("content", "model")   # a usage it lacks is recorded as such: the text was paid for

    @staticmethod
    def load_sdk():
        import anthropic
        return anthropic

    def __init__(self, settings: dict):
        api_key = secrets.key(settings["api_key_env"])
        if not api_key:
            raise InputError(f"llm backend {self.name!r}: environment variable {settings['api_key_env']} is not set")
        super().__init__(settings, api_key)

    def params(self, system: str, user: str) -> dict:
        """One chunk's request: the document as a cached system block, the chunk as the user message."""
        extra = {} if self.temperature is None else {"temperature": self.temperature}
        return dict(model=self.model, max_tokens=self.max_tokens,
                    system=[{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
                    messages=[{"role": "user", "content": user}], **extra)

    def create(self, system: str, user: str):
        return self.client.messages.create(**self.params(system, user))

    def result(self, response, duration_ms: int) -> CallResult:
        raw = response.model_dump(mode="json", warnings=False)
        text = "".join(b.text for b in response.content if getattr(b, "type", "") == "text")
        if not text.strip():
            raise AttemptFailed("empty", f"no text (stop_reason {response.stop_reason})", raw)
        usage, problems = read_counts(raw.get("usage"), USAGE_KEYS, required=("input_tokens", "output_tokens"))
        return CallResult(context=text.strip(), raw=raw, usage=usage, cost_usd=None, model=str(response.model),
                          duration_ms=duration_ms, num_turns=1, usage_problem=problem_line(problems))
