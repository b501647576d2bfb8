"""The OpenAI Batch and Files APIs of the loopback OpenAI server (tests/fakes/llm_servers.py):

    POST /v1/files (multipart: purpose=batch, file=<JSONL>)    GET /v1/files/{id}/content
    POST /v1/batches {input_file_id, endpoint, completion_window: 24h}
    GET /v1/batches (the list)    GET /v1/batches/{id}         POST /v1/batches/{id}/cancel

A batch validates its lines (JSON, unique custom_id, method POST, the batch's url, a body with
model and messages; a bad one fails the batch with `errors`), is in_progress until
`server.batch_delay_s` has passed (request_counts growing, requests processed in order so a
document's first request is the one its later ones find cached), then writes its output file
(status 200 lines) and its error file (a request `batch_fail("errored")` planned: a 500 line;
`batch_fail("expired")`: a `batch_expired` line, the batch ending `expired`) and is `completed`.
`server.failed_batches = n`: the next n batches fail validation (the enqueued token limit). A
canceled batch is `cancelling` for `server.cancel_delay_s`, then `cancelled`, its output file
holding what it processed before the cancel and the rest left out, as OpenAI does.
`server.damage_results(fn)`: the next output file is fn(its lines) (None: no output file).
"""
from __future__ import annotations

import json
import time
import uuid
from email.parser import BytesParser
from email.policy import HTTP

ERROR = {"message": "The server had an error while processing your request.", "type": "server_error",
         "param": None, "code": None}
EXPIRED = {"code": "batch_expired", "message": "This request could not be executed before the completion window "
                                               "expired."}


def invalid(message: str, status: int = 400) -> tuple[int, dict]:
    return status, {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}


def form_fields(content_type: str, body: bytes) -> dict[str, tuple[str | None, bytes]]:
    """{name: (filename, bytes)} of a multipart/form-data body."""
    message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    if not message.is_multipart():
        return {}
    return {part.get_param("name", header="content-disposition"): (part.get_filename(), part.get_payload(decode=True))
            for part in message.iter_parts()}


class OpenAIBatchAPI:
    """Mixed into FakeServer: its `files`, `batches`, `batch_delay_s`, `_batch_plan`, `_lock`."""

    failed_batches = 0
    cancel_delay_s = 0.3

    def openai_batches(self, method: str, path: str, headers: dict, body: bytes, req) -> tuple[int, object]:
        parts = path.split("?")[0].strip("/").split("/")[1:]   # after v1
        if parts == ["files"] and method == "POST":
            fields = form_fields(headers.get("content-type", ""), body)
            if fields.get("purpose", (None, b""))[1] != b"batch" or "file" not in fields:
                return invalid("purpose 'batch' and a file are required")
            file_id = f"file-{uuid.uuid4().hex[:22]}"
            name, data = fields["file"]
            with self._lock:
                self.files[file_id] = {"filename": name, "data": data, "purpose": "batch"}
            return 200, self.file_object(file_id)
        if len(parts) == 3 and parts[0] == "files" and parts[2] == "content" and method == "GET":
            if parts[1] not in self.files:
                return invalid(f"No such File object: {parts[1]}", 404)
            return 200, ("application/octet-stream", self.files[parts[1]]["data"])
        if parts == ["batches"] and method == "POST":
            return self.create_batch(req)
        if parts == ["batches"] and method == "GET":   # the list, newest first
            ids = list(reversed(self.batches))
            return 200, {"object": "list", "data": [self.openai_batch_object(i) for i in ids], "has_more": False,
                         "first_id": ids[0] if ids else None, "last_id": ids[-1] if ids else None}
        batch = self.batches.get(parts[1]) if len(parts) > 1 and parts[0] == "batches" else None
        if batch is None:
            return invalid(f"No such Batch or File: {path}", 404)
        if method == "GET" and len(parts) == 2:
            return 200, self.openai_batch_object(parts[1])
        if method == "POST" and parts[2:] == ["cancel"]:
            with self._lock:
                if batch["status"] in ("validating", "in_progress"):
                    batch["canceled"] = time.time()
            return 200, self.openai_batch_object(parts[1])
        return invalid(f"Unknown path {path}", 404)

    def file_object(self, file_id: str) -> dict:
        f = self.files[file_id]
        return {"id": file_id, "object": "file", "bytes": len(f["data"]), "created_at": int(time.time()),
                "filename": f["filename"], "purpose": f["purpose"], "status": "processed", "expires_at": None,
                "status_details": None}

    def create_batch(self, req) -> tuple[int, dict]:
        if not isinstance(req, dict) or req.get("input_file_id") not in self.files:
            return invalid("input_file_id: no such file")
        if req.get("endpoint") != "/v1/chat/completions" or req.get("completion_window") != "24h":
            return invalid("endpoint /v1/chat/completions and completion_window 24h are supported")
        batch_id = f"batch_{uuid.uuid4().hex[:24]}"
        requests, errors = self.read_input(self.files[req["input_file_id"]]["data"], req["endpoint"])
        with self._lock:
            if not errors and self.failed_batches:
                self.failed_batches -= 1
                errors = [{"code": "token_limit_exceeded", "line": None, "param": None,
                           "message": "Enqueued token limit reached for this model in organization org-fake. "
                                      "Limit: 90,000 enqueued tokens. Please try submitting a smaller batch."}]
            self.batches[batch_id] = {"requests": requests, "created": time.time(), "canceled": None,
                                      "input_file_id": req["input_file_id"], "endpoint": req["endpoint"],
                                      "metadata": req.get("metadata"),
                                      "errors": errors, "status": "failed" if errors else "validating",
                                      "output_file_id": None, "error_file_id": None, "done_at": None}
        return 200, self.openai_batch_object(batch_id)

    @staticmethod
    def read_input(data: bytes, endpoint: str) -> tuple[list[dict], list[dict]]:
        """The requests of an input file and the validation errors ([] when it is valid)."""
        requests, seen = [], set()
        for i, line in enumerate(data.decode("utf-8").splitlines(), 1):
            try:
                r = json.loads(line)
                problem = None if isinstance(r, dict) else "not an object"
            except json.JSONDecodeError:
                r, problem = None, "not JSON"
            if problem is None:
                body = r.get("body")
                problem = ("custom_id is missing" if not r.get("custom_id") else
                           "custom_id is not unique" if r["custom_id"] in seen else
                           "method must be POST" if r.get("method") != "POST" else
                           f"url must be {endpoint}" if r.get("url") != endpoint else
                           "body needs model and messages" if not (isinstance(body, dict) and body.get("model")
                                                                    and body.get("messages")) else None)
            if problem:
                return [], [{"code": "invalid_request", "line": i, "param": None, "message": problem}]
            seen.add(r["custom_id"])
            requests.append(r)
        return requests, ([] if requests else [{"code": "empty_file", "line": None, "param": None,
                                                "message": "the input file holds no requests"}])

    def openai_batch_object(self, batch_id: str) -> dict:
        """The Batch as the API returns it; its files written once its delay has passed (or its
        cancel has)."""
        batch = self.batches[batch_id]
        n, now = len(batch["requests"]), time.time()
        elapsed = now - batch["created"]
        with self._lock:
            if batch["status"] in ("validating", "in_progress"):
                if batch["canceled"] is not None:
                    batch["status"] = "cancelling"
                elif elapsed >= self.batch_delay_s:
                    self.finish(batch, n)
                elif elapsed >= 0.1 * self.batch_delay_s:
                    batch["status"] = "in_progress"
            if batch["status"] == "cancelling" and now >= batch["canceled"] + self.cancel_delay_s:
                done = min(n, int(n * (batch["canceled"] - batch["created"]) / max(self.batch_delay_s, 1e-9)))
                self.finish(batch, done)
                batch["status"] = "cancelled"
        lines = batch.get("lines", {})
        if batch["status"] in ("in_progress", "cancelling"):
            counts = {"total": n, "completed": min(n, int(n * elapsed / max(self.batch_delay_s, 1e-9))), "failed": 0}
        elif batch["status"] in ("validating", "failed"):
            counts = {"total": 0 if batch["status"] == "validating" else n, "completed": 0, "failed": 0}
        else:
            counts = {"total": n, "completed": len(lines.get("output", [])), "failed": len(lines.get("error", []))}
        stamp = lambda status: int(batch["done_at"]) if batch["status"] == status else None  # noqa: E731
        return {"id": batch_id, "object": "batch", "endpoint": batch["endpoint"],
                "errors": {"object": "list", "data": batch["errors"]} if batch["errors"] else None,
                "input_file_id": batch["input_file_id"], "completion_window": "24h", "status": batch["status"],
                "output_file_id": batch["output_file_id"], "error_file_id": batch["error_file_id"],
                "created_at": int(batch["created"]), "in_progress_at": int(batch["created"]),
                "expires_at": int(batch["created"]) + 86400, "finalizing_at": None,
                "completed_at": stamp("completed"), "failed_at": int(batch["created"]) if batch["errors"] else None,
                "expired_at": stamp("expired"), "cancelling_at": int(batch["canceled"]) if batch["canceled"] else None,
                "cancelled_at": stamp("cancelled"), "request_counts": counts, "metadata": batch["metadata"]}

    def finish(self, batch: dict, done: int) -> None:
        """Process the first `done` requests (in order; the plan's failures taken one by one) and
        write the output and error files (called under the lock)."""
        lines = {"output": [], "error": []}
        expired = False
        for r in batch["requests"][:done]:
            kind = self._batch_plan.pop(0) if self._batch_plan else "succeeded"
            line = {"id": f"batch_req_{uuid.uuid4().hex[:24]}", "custom_id": r["custom_id"], "response": None,
                    "error": None}
            if kind == "expired":
                expired = True
                lines["error"].append({**line, "error": EXPIRED})
                continue
            status, body = (500, {"error": ERROR}) if kind == "errored" else self.openai(r["url"], {}, r["body"])
            line["response"] = {"status_code": status, "request_id": uuid.uuid4().hex, "body": body}
            lines["output" if status == 200 else "error"].append(line)
        for kind, rows in lines.items():
            text = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows) if rows else None
            if kind == "output":
                text = self.damaged(text or "")
            if text:
                file_id = f"file-{uuid.uuid4().hex[:22]}"
                self.files[file_id] = {"filename": f"batch_{kind}.jsonl", "purpose": "batch_output",
                                       "data": text.encode("utf-8")}
                batch[f"{kind}_file_id"] = file_id
        batch.update(lines=lines, done_at=time.time(), status="expired" if expired else "completed")
