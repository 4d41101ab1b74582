"""A fake model server for tests: the real wire formats on 127.0.0.1, scripted answers, recorded requests.

Speaks Ollama ``/api/generate`` and ``/api/chat`` (one JSON object, or NDJSON when ``stream`` is true),
OpenAI-compatible ``/v1/completions`` and ``/v1/chat/completions`` (JSON, or server-sent events with
``stream: true``; a chat stream ends with a ``finish_reason`` and token counts, as OpenAI's does). Each
request takes the next scripted :class:`Answer` (the last one repeats): a text, a delay, an HTTP error, a
dropped connection or a body that is not JSON.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    text: str = ""
    delay: float = 0.0  # seconds before answering
    status: int = 200
    drop: bool = False  # close the connection without an answer (or mid-stream)
    garbage: bool = False
    chunks: list[str] | None = None  # streamed pieces (defaults to the text in one piece)
    chunk_delay: float = 0.0
    endless: int = 0  # stream this many bytes of filler (no [DONE]) until the client hangs up
    raw_events: list[Any] | None = None  # chat deltas sent as given (e.g. non-string content), before the text


@dataclass
class FakeModel:
    answers: list[Answer] = field(default_factory=lambda: [Answer("")])
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    port: int = 0
    endless_sent: int = 0  # bytes of endless filler written before the client hung up
    arrived: threading.Condition = field(default_factory=threading.Condition)  # notified at each request

    def wait_for_requests(self, count: int, timeout: float = 10) -> None:
        """Block until ``count`` requests have arrived (call it from a thread, not the test's loop)."""
        with self.arrived:
            if not self.arrived.wait_for(lambda: len(self.requests) >= count, timeout):
                raise AssertionError(f"the fake model got {len(self.requests)} requests, not {count}")

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def next_answer(self) -> Answer:
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def _handler(model: FakeModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            with model.arrived:
                model.paths.append(self.path)
                model.headers.append(dict(self.headers.items()))
                model.requests.append(body)
                model.arrived.notify_all()
            answer = model.next_answer()
            time.sleep(answer.delay)
            if answer.drop and not answer.chunks:
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if answer.status != 200:
                self._send(answer.status, b'{"error": "scripted failure"}')
                return
            if answer.garbage:
                self._send(200, b"<html>not json</html>")
                return
            if body.get("stream"):
                self._stream(answer)
                return
            if answer.endless:  # a body without Content-Length that never ends
                self.send_response(200)
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                self._endless(answer.endless, ndjson=True)
                return
            self._send(200, json.dumps(self._whole(answer.text)).encode())

        def _whole(self, text: str) -> dict[str, Any]:
            if self.path.endswith("/api/generate"):
                return {"model": "fake", "response": text, "done": True}
            if self.path.endswith("/api/chat"):
                return {"model": "fake", "message": {"role": "assistant", "content": text}, "done": True}
            if self.path.endswith("/chat/completions"):
                return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
            return {"choices": [{"index": 0, "text": text}]}

        def _send(self, status: int, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _pieces(self, answer: Answer) -> Iterator[str]:
            yield from answer.chunks if answer.chunks is not None else [answer.text]

        def _stream(self, answer: Answer) -> None:
            self.send_response(200)
            ndjson = self.path.endswith(("/api/generate", "/api/chat"))
            chat = self.path.endswith("/api/chat")
            self.send_header("Content-Type", "application/x-ndjson" if ndjson else "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for content in answer.raw_events or []:
                event = {"choices": [{"index": 0, "delta": {"content": content}}]}
                self.wfile.write(("data: " + json.dumps(event) + "\n\n").encode())
            if answer.endless:
                self._endless(answer.endless, ndjson)
                return
            for k, piece in enumerate(self._pieces(answer)):
                if answer.drop and k == len(answer.chunks or []) // 2:
                    self.connection.shutdown(2)
                    return
                if chat:
                    line = json.dumps({"message": {"role": "assistant", "content": piece}, "done": False}) + "\n"
                elif ndjson:
                    line = json.dumps({"response": piece, "done": False}) + "\n"
                elif self.path.endswith("/chat/completions"):
                    line = "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": piece}}]}) + "\n\n"
                else:
                    line = "data: " + json.dumps({"choices": [{"index": 0, "text": piece}]}) + "\n\n"
                self.wfile.write(line.encode())
                self.wfile.flush()
                time.sleep(answer.chunk_delay)
            pieces = len(list(self._pieces(answer)))
            if chat:
                end = {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"}
                self.wfile.write((json.dumps(end | {"prompt_eval_count": 7, "eval_count": pieces}) + "\n").encode())
            elif ndjson:
                self.wfile.write(b'{"response": "", "done": true}\n')
            else:
                if self.path.endswith("/chat/completions"):
                    usage = {"prompt_tokens": 7, "completion_tokens": pieces, "total_tokens": 7 + pieces}
                    last = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage}
                    self.wfile.write(("data: " + json.dumps(last) + "\n\n").encode())
                self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

        def _endless(self, limit: int, ndjson: bool) -> None:
            """Filler until ``limit`` bytes are sent or the client hangs up (bounded: it stops by itself)."""
            filler = "x" * 4000
            line = (
                json.dumps({"response": filler, "done": False}) + "\n"
                if ndjson
                else "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": filler}}]}) + "\n\n"
            ).encode()
            sent = 0
            try:
                while sent < limit:
                    self.wfile.write(line)
                    sent += len(line)
                model.endless_sent = sent
            except OSError:
                model.endless_sent = sent

    return Handler


class RunningModel:
    """Context manager: the fake server in a thread on a free port."""

    def __init__(self, *answers: Answer) -> None:
        self.model = FakeModel(list(answers) or [Answer("")])
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.model))
        self.server.daemon_threads = True
        self.model.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeModel:
        self.thread.start()
        return self.model

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
