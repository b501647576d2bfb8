"""echo: an LLM backend used only in tests, added as a new backend is: this module (the backend
and its settings) and one registry line (`ECHO`, registered in ctxret.contexts.llm.BACKENDS by the tests
that use it). It answers with the chunk's first words and counts
a token per character, like a server that caches prompt prefixes: a document's first call sends
it as input, later calls read it from the cache."""
from __future__ import annotations

from ctxret.contexts.llm import Backend, BackendSpec, CallResult


class EchoBackend(Backend):
    name = "echo"

    def __init__(self, settings: dict):
        self.model = settings["model"]
        self.cached: set[str] = set()   # the system prompts (documents) seen

    def identity(self) -> dict:
        return {"backend": self.name, "model": self.model}

    def call(self, system: str, user: str, doc: dict, chunk: dict) -> CallResult:
        read = system in self.cached
        self.cached.add(system)
        context = "echo: " + " ".join(chunk["text"].split()[:5])
        usage = {"input_tokens": len(user) + (0 if read else len(system)), "output_tokens": len(context),
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": len(system) if read else 0}
        return CallResult(context=context, raw={"echo": context}, usage=usage, cost_usd=None, model=self.model,
                          duration_ms=0, num_turns=1)


SETTINGS = {"required": ["model"], "properties": {"model": {"type": "string", "minLength": 1},
                                                 "max_words": {"type": "integer", "minimum": 1, "default": 5}}}
ECHO = BackendSpec("echo", EchoBackend, SETTINGS, {"first": "input_tokens", "user": "input_tokens"})
