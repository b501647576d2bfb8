"""Loopback HTTP servers speaking the Anthropic Messages API and OpenAI chat completions.

    with anthropic_server() as server:      # server.url -> http://127.0.0.1:<port>
        server.fail("429", n=2)            # the next two requests answer 429 ("500", "sleep")
        ...
        server.requests                    # [{"method", "path", "headers", "json"}]
        server.tamper(fn, n=1)             # the next answer (a message, a completion) is fn(answer)

The Anthropic server also runs the Message Batches API (create, retrieve, results, cancel):

        server.batch_delay_s = 3           # a batch ends 3 s after it is created (progress meanwhile)
        server.batch_fail("errored", n=2)  # the next two requests processed: errored ("expired", "canceled")
        server.batches                     # {id: {"requests", "created", "canceled", "results"}}
        server.damage_results(fn, n=1)     # the next results file is fn(its lines): cut, left out, added
        server.lost_creates = 1            # the next batch create makes its batch, then answers 500
        server.slow_creates = 1            # the next batch create waits sleep_s, then makes its batch

The OpenAI server runs the Batch and Files APIs the same way (tests/fakes/openai_batch_api.py):
batch_delay_s, batch_fail("errored"|"expired"), batches, files, failed_batches.

The answer is a Korean sentence from the chunk (<chunk>...</chunk> of the user message, else the
message), about as long as a real context, as fake_claude's; to a question-generation or a judging
prompt, fake_claude's reply to it (question_for, grade_for). Tokens are characters / 1.46, as
for Korean technical text (config/prices.yaml). The Anthropic server caches a
system prompt whose blocks carry cache_control (write on first sight, read afterwards); the
OpenAI server caches every system prompt it has seen, reported as OpenAI and vLLM do
(usage.prompt_tokens_details.cached_tokens), or as llama.cpp's server does (`server.cache_report =
"timings"`: timings.cache_n and prompt_n, the tokens processed), or not at all (None, as Ollama).
It states its context window (`server.n_ctx`) where `server.window_report` says: "llama.cpp"
(GET /props default_generation_settings.n_ctx; GET /v1/models meta.n_ctx_train, twice that), "vllm"
(GET /v1/models max_model_len) or None (the model listed without a window, as OpenAI; no /props).
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import json
import math
import re
import threading
import time
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

from .openai_batch_api import OpenAIBatchAPI


def tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 1.46)) if text else 0


def context_for(user: str) -> str:
    m = re.search(r"<chunk>(.*?)</chunk>", user, re.S)
    text = " ".join((m.group(1) if m else user).split())
    return (f"이 청크는 '{text[:60]}'(으)로 시작하는 부분으로, 문서의 해당 절에서 "
            f"{text[60:230]} 내용을 다룬다.")


def _fake_claude():
    path = Path(__file__).with_name("fake_claude")
    loader = importlib.machinery.SourceFileLoader("fake_claude", str(path))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("fake_claude", loader))
    loader.exec_module(module)
    return module


FAKE_CLAUDE = _fake_claude()


def answer_for(user: str) -> str:
    """fake_claude's reply: a question to a generation prompt, a grade to a judging one, else a context."""
    kind = re.search(r"<kind>(\w+)</kind>", user)
    return (FAKE_CLAUDE.question_for(user, kind.group(1)) if kind
            else FAKE_CLAUDE.grade_for(user) if "<query>" in user else context_for(user))


def text_of(content) -> str:
    """The text of a message content: a string or a list of content blocks."""
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


# 200 answers that are not the API's: (content type, body), or a JSON object of the wrong shape
MALFORMED = {"empty": ("application/json", b""),
             "garbage": ("application/json", b"}{ not json"),
             "html": ("text/html", b"<html><body><h1>502 Bad Gateway</h1></body></html>"),
             "shapeless": {"ok": True}}

class FakeServer(OpenAIBatchAPI):
    """One loopback server; `api` is "anthropic" or "openai"."""

    def __init__(self, api: str, sleep_s: float = 5.0):
        self.api = api
        self.sleep_s = sleep_s
        self.requests: list[dict] = []
        self.seen_prefixes: set[str] = set()
        self._plan: list[str] = []
        self.batches: dict[str, dict] = {}
        self.files: dict[str, dict] = {}
        self.batch_delay_s = 0.0
        self._batch_plan: list[str] = []
        self._tampers: list = []
        self._damages: list = []
        self.lost_creates = 0   # the next n batch create calls make their batch, then answer 500
        self.slow_creates = 0   # the next n batch create calls wait sleep_s before making their batch
        self.cache_report: str | None = "usage"   # OpenAI: where a completion reports its cached prefix
        self.window_report: str | None = None      # OpenAI: where the server states its context window
        self.n_ctx = 4096
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def fail(self, mode: str, n: int = 1) -> None:
        """The next `n` requests answer `mode`: "401", "401-echo" (a 401 whose message echoes the key
        sent, as some proxies do), "429", "500", "sleep" (then answer late), or 200 with a body that
        is not the API's answer (a key of MALFORMED)."""
        if mode not in ("401", "401-echo", "429", "500", "sleep", *MALFORMED):
            raise ValueError(mode)
        with self._lock:
            self._plan += [mode] * n

    def tamper(self, fn, n: int = 1) -> None:
        """The next `n` answers the server gives (a message, online or in a batch's results; a chat
        completion) are fn(answer): a malformed usage, a refusal, a key echoed in the text."""
        with self._lock:
            self._tampers += [fn] * n

    def tampered(self, answer: dict) -> dict:
        with self._lock:
            fn = self._tampers.pop(0) if self._tampers else None
        return fn(answer) if fn else answer

    def damage_results(self, fn, n: int = 1) -> None:
        """The results of the next `n` batches (Anthropic: the results file, as first read; OpenAI:
        the output file) are fn(their JSON lines as text): lines left out, cut short, replaced or
        added; None: none at all (OpenAI: the batch completes without an output file)."""
        with self._lock:
            self._damages += [fn] * n

    def damaged(self, text: str) -> str | None:
        with self._lock:
            fn = self._damages.pop(0) if self._damages else None
        return fn(text) if fn else text

    def batch_fail(self, kind: str, n: int = 1) -> None:
        """The next `n` batch requests processed end `kind`: "errored", "expired" or "canceled"."""
        if kind not in ("errored", "expired", "canceled"):
            raise ValueError(kind)
        with self._lock:
            self._batch_plan += [kind] * n

    def __enter__(self) -> "FakeServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    # -- one request ------------------------------------------------------------------------
    def handle(self, method: str, path: str, headers: dict, body: bytes) -> tuple[int, dict]:
        try:
            payload = json.loads(body or b"null")
        except ValueError:   # not JSON (a multipart upload, a file)
            payload = None
        with self._lock:
            self.requests.append({"method": method, "path": path, "headers": headers,
                                  "json": payload})
            mode = self._plan.pop(0) if self._plan else None
        if mode == "sleep":
            self._stop.wait(self.sleep_s)
        elif mode in MALFORMED:
            return 200, MALFORMED[mode]
        elif mode == "401-echo":
            sent = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
            return 401, {"error": {"message": f"Incorrect API key provided: {sent}.", "type": "invalid_request_error",
                                   "param": None, "code": "invalid_api_key"}}
        elif mode is not None:
            return self.error(int(mode))
        if (path.startswith(("/v1/files", "/v1/batches")) if self.api == "openai"
                else path.startswith("/v1/messages/batches")):
            creates = method == "POST" and path in ("/v1/batches", "/v1/messages/batches")
            with self._lock:
                slow = creates and self.slow_creates > 0
                self.slow_creates -= slow
            if slow:                     # the caller may give up first; the batch is made all the same
                self._stop.wait(self.sleep_s)
            status, answer = (self.openai_batches(method, path, headers, body, payload) if self.api == "openai"
                              else self.message_batches(method, path, headers, payload))
            with self._lock:
                lost = status == 200 and creates and self.lost_creates > 0
                self.lost_creates -= lost
            return self.error(500) if lost else (status, answer)
        if self.api == "anthropic":
            return self.anthropic(path, headers, payload)
        return self.openai(path, headers, payload)

    # -- the Message Batches API ---------------------------------------------------------------
    def message_batches(self, method: str, path: str, headers: dict, req) -> tuple[int, dict]:
        parts = path.split("?")[0].rstrip("/").split("/")[4:]   # after /v1/messages/batches
        if method == "POST" and not parts:
            requests = (req or {}).get("requests") if isinstance(req, dict) else None
            if not requests or not all(isinstance(r, dict) and {"custom_id", "params"} <= set(r) for r in requests):
                return 400, {"type": "error", "error": {"type": "invalid_request_error",
                                                        "message": "requests: a list of {custom_id, params}"}}
            if len({r["custom_id"] for r in requests}) != len(requests):
                return 400, {"type": "error", "error": {"type": "invalid_request_error",
                                                        "message": "custom_id values must be unique"}}
            batch_id = f"msgbatch_{uuid.uuid4().hex[:24]}"
            with self._lock:
                self.batches[batch_id] = {"requests": requests, "created": time.time(), "canceled": None,
                                          "results": None, "headers": headers}
            return 200, self.batch_object(batch_id)
        if method == "GET" and not parts:   # the list, newest first
            ids = list(reversed(self.batches))
            return 200, {"data": [self.batch_object(i) for i in ids], "has_more": False,
                         "first_id": ids[0] if ids else None, "last_id": ids[-1] if ids else None}
        batch = self.batches.get(parts[0]) if parts else None
        if batch is None:
            return 404, {"type": "error", "error": {"type": "not_found_error", "message": path}}
        if method == "GET" and len(parts) == 1:
            return 200, self.batch_object(parts[0])
        if method == "POST" and parts[1:] == ["cancel"]:
            with self._lock:
                batch["canceled"] = batch["canceled"] or time.time()
            return 200, self.batch_object(parts[0])
        if method == "GET" and parts[1:] == ["results"]:
            if self.batch_object(parts[0])["processing_status"] != "ended":
                return 404, {"type": "error", "error": {"type": "not_found_error", "message": "not ended"}}
            if "body" not in batch:
                batch["body"] = self.damaged("".join(json.dumps({"custom_id": cid, "result": result},
                                                                ensure_ascii=False) + "\n"
                                                     for cid, result in batch["results"].items()))
            return 200, ("application/binary", (batch["body"] or "").encode("utf-8"))
        return 404, {"type": "error", "error": {"type": "not_found_error", "message": path}}

    def batch_object(self, batch_id: str) -> dict:
        """The MessageBatch as the API returns it; processed (in request order, so a document's
        first request writes the cache its later ones read) once its delay has passed."""
        batch = self.batches[batch_id]
        n = len(batch["requests"])
        elapsed = time.time() - batch["created"]
        ended = elapsed >= self.batch_delay_s or batch["canceled"] is not None
        if ended and batch["results"] is None:
            done = n if batch["canceled"] is None else min(n, int(n * (batch["canceled"] - batch["created"])
                                                                  / max(self.batch_delay_s, 1e-9)))
            batch["results"] = {r["custom_id"]: self.batch_result(r["params"], batch["headers"], i >= done)
                                for i, r in enumerate(batch["requests"])}
        counts = dict.fromkeys(("processing", "succeeded", "errored", "canceled", "expired"), 0)
        if batch["results"] is not None:
            for result in batch["results"].values():
                counts[result["type"]] += 1
        else:   # progress: the requests done so far, in order
            counts["succeeded"] = int(n * elapsed / self.batch_delay_s)
            counts["processing"] = n - counts["succeeded"]
        stamp = lambda t: datetime.fromtimestamp(t, timezone.utc).isoformat().replace("+00:00", "Z")  # noqa: E731
        return {"id": batch_id, "type": "message_batch",
                "processing_status": "ended" if batch["results"] is not None else
                ("canceling" if batch["canceled"] else "in_progress"),
                "request_counts": counts, "created_at": stamp(batch["created"]),
                "expires_at": stamp(batch["created"] + 86400),
                "ended_at": stamp(time.time()) if batch["results"] is not None else None,
                "cancel_initiated_at": stamp(batch["canceled"]) if batch["canceled"] else None,
                "archived_at": None,
                "results_url": f"{self.url}/v1/messages/batches/{batch_id}/results"
                if batch["results"] is not None else None}

    def batch_result(self, params: dict, headers: dict, canceled: bool) -> dict:
        with self._lock:
            kind = "canceled" if canceled else (self._batch_plan.pop(0) if self._batch_plan else "succeeded")
        if kind == "errored":
            return {"type": "errored", "error": {"type": "error", "request_id": f"req_{uuid.uuid4().hex[:24]}",
                                                 "error": {"type": "api_error", "message": "Internal server error"}}}
        if kind != "succeeded":
            return {"type": kind}
        status, message = self.anthropic("/v1/messages", headers, params)
        if status != 200:
            return {"type": "errored", "error": message}
        return {"type": "succeeded", "message": message}

    def error(self, status: int) -> tuple[int, dict]:
        if self.api == "anthropic":
            kind = {401: "authentication_error", 429: "rate_limit_error", 500: "api_error"}[status]
            message = {401: "invalid x-api-key", 429: "Number of request tokens has exceeded your per-minute rate limit",
                       500: "Internal server error"}[status]
            return status, {"type": "error", "error": {"type": kind, "message": message},
                            "request_id": f"req_{uuid.uuid4().hex[:24]}"}
        if status == 401:
            return 401, {"error": {"message": "Incorrect API key provided: sk-bad.", "type": "invalid_request_error",
                                   "param": None, "code": "invalid_api_key"}}
        if status == 429:
            return 429, {"error": {"message": "Rate limit reached for requests", "type": "requests",
                                   "param": None, "code": "rate_limit_exceeded"}}
        return 500, {"error": {"message": "The server had an error while processing your request.",
                               "type": "server_error", "param": None, "code": None}}

    def cache(self, prefix: str) -> bool:
        """True when `prefix` was seen before (a cache read); remembers it otherwise."""
        key = hashlib.sha256(prefix.encode("utf-8")).hexdigest()
        with self._lock:
            hit = key in self.seen_prefixes
            self.seen_prefixes.add(key)
        return hit

    def anthropic(self, path: str, headers: dict, req) -> tuple[int, dict]:
        if path != "/v1/messages":
            return 404, {"type": "error", "error": {"type": "not_found_error", "message": path}}
        if not (headers.get("x-api-key") or headers.get("authorization", "").startswith("Bearer ")):
            return 401, {"type": "error", "error": {"type": "authentication_error",
                                                    "message": "x-api-key header is required"}}
        if not isinstance(req, dict) or not all(k in req for k in ("model", "max_tokens", "messages")):
            return 400, {"type": "error", "error": {"type": "invalid_request_error",
                                                    "message": "model, max_tokens, messages required"}}
        system = req.get("system") or []
        blocks = [{"type": "text", "text": system}] if isinstance(system, str) else system
        marked = [i for i, b in enumerate(blocks) if b.get("cache_control")]
        cut = marked[-1] + 1 if marked else 0  # the cached prefix ends at the last marker
        prefix = "".join(b.get("text", "") for b in blocks[:cut])
        rest = "".join(b.get("text", "") for b in blocks[cut:])
        user = text_of(req["messages"][-1].get("content"))
        hit = self.cache(prefix) if prefix else False
        answer = answer_for(user)
        created = 0 if hit or not prefix else tokens(prefix)
        usage = {"input_tokens": tokens(rest) + sum(tokens(text_of(m.get("content")))
                                                    for m in req["messages"]),
                 "cache_creation_input_tokens": created,
                 "cache_read_input_tokens": tokens(prefix) if hit else 0,
                 "cache_creation": {"ephemeral_5m_input_tokens": created,
                                    "ephemeral_1h_input_tokens": 0},
                 "output_tokens": tokens(answer), "service_tier": "standard"}
        return 200, self.tampered({"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant",
                                   "model": req["model"], "content": [{"type": "text", "text": answer}],
                                   "stop_reason": "end_turn", "stop_sequence": None, "usage": usage})

    def served_model(self, path: str) -> tuple[int, dict]:
        """GET /props (llama.cpp's server) and GET /v1/models, as `window_report` says."""
        model = {"id": "served-model.gguf", "object": "model", "created": 1733443200, "owned_by": "fake"}
        if path == "/props" and self.window_report == "llama.cpp":
            return 200, {"default_generation_settings": {"n_ctx": self.n_ctx, "params": {"temperature": 0.8}},
                         "total_slots": 1, "model_path": "/models/served-model.gguf"}
        if path == "/v1/models" and self.window_report == "llama.cpp":
            return 200, {"object": "list", "data": [{**model, "meta": {"n_ctx_train": 2 * self.n_ctx}}]}
        if path == "/v1/models":
            return 200, {"object": "list", "data": [{**model, **({"max_model_len": self.n_ctx}
                                                                  if self.window_report == "vllm" else {})}]}
        return 404, {"error": {"message": f"Unknown path {path}", "type": "invalid_request_error",
                               "param": None, "code": "unknown_url"}}

    def openai(self, path: str, headers: dict, req) -> tuple[int, dict]:
        if path in ("/props", "/v1/models"):
            return self.served_model(path)
        if path != "/v1/chat/completions":
            return 404, {"error": {"message": f"Unknown path {path}", "type": "invalid_request_error",
                                   "param": None, "code": "unknown_url"}}
        if not isinstance(req, dict) or "model" not in req or not req.get("messages"):
            return 400, {"error": {"message": "model and messages are required",
                                   "type": "invalid_request_error", "param": None, "code": None}}
        system = "".join(text_of(m.get("content")) for m in req["messages"]
                         if m.get("role") == "system")
        prompt = sum(tokens(text_of(m.get("content"))) for m in req["messages"])
        cached = tokens(system) if system and self.cache(system) else 0
        answer = answer_for(text_of(req["messages"][-1].get("content")))
        completion = tokens(answer)
        usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        reported = {"usage": {"usage": {**usage, "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
                                        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0}}},
                    "timings": {"usage": usage, "timings": {"cache_n": cached, "prompt_n": prompt - cached,
                                                            "predicted_n": completion}},
                    None: {"usage": usage}}[self.cache_report]
        return 200, self.tampered({
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion",
            "created": int(time.time()), "model": req["model"], "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer,
                                                 "refusal": None},
                         "logprobs": None, "finish_reason": "stop"}],
            **reported})

    def _handler_class(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self.do_POST("GET")

            def do_POST(self, method="POST"):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, answer = server.handle(method, self.path, headers, body)
                kind, data = answer if isinstance(answer, tuple) else (
                    "application/json", json.dumps(answer, ensure_ascii=False).encode("utf-8"))
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(data)))
                    if status == 429:
                        self.send_header("retry-after", "1")
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

            def log_message(self, *args):
                pass

        return Handler


@contextlib.contextmanager
def anthropic_server(sleep_s: float = 5.0) -> Iterator[FakeServer]:
    with FakeServer("anthropic", sleep_s) as server:
        yield server


@contextlib.contextmanager
def openai_server(sleep_s: float = 5.0) -> Iterator[FakeServer]:
    with FakeServer("openai", sleep_s) as server:
        yield server
