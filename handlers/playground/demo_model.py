"""A stand-in chat model for ``tether-lsp demo``: an OpenAI-compatible ``/v1/chat/completions`` on 127.0.0.1 that
streams a canned answer word by word, so the demo shows a real run (HTTP, server-sent events, streaming)
without a network or an API key. It says it is a demo and quotes what it was sent."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def answer_for(messages: list[dict[str, Any]]) -> str:
    last = str(messages[-1].get("content", "")) if messages else ""
    quoted = " ".join(last.split())
    return f"(demo model) {len(messages)} message(s) received; the last one reads: «{quoted[:80]}»"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        words = answer_for(body.get("messages", [])).split(" ")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for k, word in enumerate(words):
            delta = {"content": word if k == 0 else " " + word}
            self.wfile.write(b"data: " + json.dumps({"choices": [{"index": 0, "delta": delta}]}).encode() + b"\n\n")
        usage = {"prompt_tokens": sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))}
        usage["completion_tokens"] = len(words)
        end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage}
        self.wfile.write(b"data: " + json.dumps(end).encode() + b"\n\ndata: [DONE]\n\n")
        self.close_connection = True


class DemoModel:
    """Context manager: the stand-in model in a daemon thread on a free port; ``url`` is its ``/v1`` base."""

    def __init__(self) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> DemoModel:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
