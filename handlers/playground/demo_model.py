"""A stand-in chat model on 127.0.0.1, for ``tether-lsp demo`` and ``tether-lsp fake-model`` (trying the playground
or inline tasks without a model account): an OpenAI-compatible ``…/chat/completions`` (server-sent events) and an
Ollama ``…/api/chat`` (NDJSON) that stream a canned answer word by word, so a run is real (HTTP, streaming, token
counts) without a network or an API key. It says it is a stand-in and quotes what it was sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: Told each chat as it is answered: ``(path, number of messages, number of words answered)``.
OnChat = Callable[[str, int, int], None]


def answer_for(messages: list[dict[str, Any]], label: str = "demo model") -> str:
    last = str(messages[-1].get("content", "")) if messages else ""
    quoted = " ".join(last.split())
    return f"({label}) {len(messages)} message(s) received; the last one reads: «{quoted[:80]}»"


def _handler(label: str, on_chat: OnChat | None) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args: Any) -> None:
            pass

        def do_POST(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            except ValueError:
                body = None
            ollama = path.endswith("/api/chat")
            if not isinstance(body, dict) or not (ollama or path.endswith("/chat/completions")):
                why = "expected a JSON chat request" if path.endswith("chat") else "this stand-in model only chats"
                return self._refuse(f"{why}: POST …/v1/chat/completions or …/api/chat")
            messages = [m for m in body.get("messages", []) if isinstance(m, dict)]
            words = answer_for(messages, label).split(" ")
            if on_chat is not None:
                on_chat(path, len(messages), len(words))
            prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson" if ollama else "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            for k, word in enumerate(words):
                piece = word if k == 0 else " " + word
                self._event(ollama, {"message": {"role": "assistant", "content": piece}, "done": False}, piece)
            if ollama:
                end = {"done": True, "done_reason": "stop", "prompt_eval_count": prompt_tokens}
                self.wfile.write(json.dumps(end | {"eval_count": len(words)}).encode() + b"\n")
            else:
                usage = {"prompt_tokens": prompt_tokens, "completion_tokens": len(words)}
                end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage}
                self.wfile.write(b"data: " + json.dumps(end).encode() + b"\n\ndata: [DONE]\n\n")
            self.close_connection = True

        def _event(self, ollama: bool, line: dict[str, Any], piece: str) -> None:
            if ollama:
                self.wfile.write(json.dumps(line).encode() + b"\n")
            else:
                delta = {"choices": [{"index": 0, "delta": {"content": piece}}]}
                self.wfile.write(b"data: " + json.dumps(delta).encode() + b"\n\n")

        def _refuse(self, reason: str) -> None:
            data = json.dumps({"error": reason}).encode()
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


class DemoModel:
    """Context manager: the stand-in model in a daemon thread (a free port unless ``port`` is given); ``url`` is
    its ``/v1`` base."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, label: str = "demo model", on_chat: OnChat | None = None
    ) -> None:
        self.server = ThreadingHTTPServer((host, port), _handler(label, on_chat))
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_address[1]}/v1"

    def __enter__(self) -> DemoModel:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
