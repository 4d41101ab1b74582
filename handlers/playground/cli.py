"""``tether-lsp fake-model``: the stand-in chat model the demo uses (:mod:`.demo_model`), served until Ctrl+C, so the
playground and inline tasks can be tried without a model account: point ``tether.playground.endpoint`` at the
URL it prints."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Sequence
from typing import Any

from .demo_model import DemoModel

#: The port it listens on unless told otherwise (what docs/playground.md's settings name).
DEFAULT_PORT = 8765


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tether-lsp fake-model",
        description="Serve a stand-in chat model on this machine (OpenAI-compatible /v1/chat/completions and "
        "Ollama /api/chat, streamed) that answers every chat by quoting the last message it got: try the prompt "
        "playground or inline tasks without a model account. Runs until Ctrl+C.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT}; 0: any free port)"
    )
    return parser


def _stop(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str]) -> int:
    options = _parser().parse_args(argv)
    if not 0 <= options.port <= 65535:
        print(f"tether-lsp fake-model: --port must be from 0 to 65535, got {options.port}", file=sys.stderr)
        return 2

    def told(path: str, messages: int, words: int) -> None:
        print(f"POST {path}: {messages} message(s), answered with {words} words", file=sys.stderr, flush=True)

    try:
        model = DemoModel(options.host, options.port, label="fake model", on_chat=told)
    except OSError as exc:
        print(f"tether-lsp fake-model: cannot listen on {options.host}:{options.port}: {exc.strerror}", file=sys.stderr)
        print("choose another port with --port N (0: any free port)", file=sys.stderr)
        return 1
    settings = {"tether": {"playground": {"endpoint": model.url, "model": "fake"}}}
    print(f"Tether's fake model is listening at {model.url}", flush=True)
    print(f"Point the playground at it with the settings {json.dumps(settings)}", flush=True)
    print("Stop it with Ctrl+C.", flush=True)
    signal.signal(signal.SIGTERM, _stop)
    try:
        model.server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        model.server.server_close()
    return 0
