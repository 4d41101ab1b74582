"""The official MCP conformance suite (npm ``@modelcontextprotocol/conformance`` 0.1.13, installed by
``scripts/ensure-mcp-tools.sh`` into ``.cache/mcp-conformance``) against attached mode's HTTP endpoint of a real
language server.

The suite's server scenarios that apply to a server offering tools only are run one by one and every check must
pass. The others ask for what Tether does not offer (resources, prompts in MCP's sense, completions, logging,
sampling, elicitation, the suite's own test tools: image, audio, embedded resources, progress): they do not apply.

The suite's client cannot send an ``Authorization`` header, and the endpoint refuses requests without its token, so
the suite talks to a small loopback proxy that adds the token and passes everything else through as it came:
method, path, body, every header (``Host`` and ``Origin`` included, so the DNS-rebinding scenario tests the
endpoint's own checks), and the answer streamed back chunk by chunk (server-sent events included).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.e2e.test_mcp_attached_e2e import language_server

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / ".cache" / "mcp-conformance" / "node_modules" / ".bin" / "conformance"
#: The server scenarios that apply to an MCP server whose only capability is tools.
APPLICABLE = ("server-initialize", "ping", "tools-list", "server-sse-multiple-streams", "dns-rebinding-protection")
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}


@pytest.fixture(scope="module")
def suite() -> Path:
    if not os.access(SUITE, os.X_OK):
        if os.environ.get("TETHER_REQUIRE_EDITORS") or os.environ.get("CI"):
            pytest.fail("the MCP conformance suite is missing: scripts/ensure-mcp-tools.sh installs it")
        pytest.skip("run scripts/ensure-mcp-tools.sh first")
    return SUITE


@contextmanager
def token_proxy(url: str, token: str) -> Iterator[str]:
    """A loopback proxy to ``url`` that adds the bearer token; yields the URL to give the suite."""
    target = urlsplit(url)
    upstream_port = target.port
    assert target.hostname == "127.0.0.1" and upstream_port is not None

    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k.lower(): v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            name, _, port = headers.get("host", "").rpartition(":")
            if name in ("127.0.0.1", "localhost") and port == str(proxy.server_port):
                headers["host"] = f"{name}:{upstream_port}"  # this proxy's port, as the endpoint's own
            headers["authorization"] = f"Bearer {token}"
            connection = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=60)
            try:
                connection.request(self.command, self.path, body=body, headers=headers)
                answer = connection.getresponse()
                self.send_response(answer.status, answer.reason)
                for key, value in answer.getheaders():
                    if key.lower() not in HOP_BY_HOP and key.lower() != "content-length":
                        self.send_header(key, value)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                while chunk := answer.read1(65536):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except (ConnectionError, TimeoutError):
                self.close_connection = True
            finally:
                connection.close()

        do_GET = do_POST = do_DELETE = forward

    proxy = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    proxy.daemon_threads = True
    thread = threading.Thread(target=proxy.serve_forever, name="token proxy", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{proxy.server_port}{target.path}"
    finally:
        proxy.shutdown()
        proxy.server_close()


async def scenario(suite: Path, url: str, name: str, out: Path) -> list[dict[str, object]]:
    """Run one server scenario; its checks as the suite wrote them."""
    folder = out / name
    process = await asyncio.create_subprocess_exec(
        str(suite),
        "server",
        "--url",
        url,
        "--scenario",
        name,
        "-o",
        str(folder),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    printed, _ = await asyncio.wait_for(process.communicate(), 120)
    (found,) = folder.glob("*/checks.json")
    checks: list[dict[str, object]] = json.loads(found.read_text())
    assert checks, printed.decode(errors="replace")
    return checks


async def test_the_official_conformance_suite_passes_every_scenario_that_applies(suite: Path, tmp_path: Path) -> None:
    async with language_server(tmp_path) as session:
        (session.root / "store.py").write_text("class Store:\n    pass\n")
        with token_proxy(session.url, session.token) as url:
            failed = {}
            for name in APPLICABLE:
                checks = await scenario(suite, url, name, tmp_path / "results")
                bad = [c for c in checks if c["status"] not in ("SUCCESS", "INFO")]
                if bad:
                    failed[name] = bad
            assert not failed, json.dumps(failed, indent=1)[:4000]


async def test_without_the_proxy_the_suite_is_refused_for_want_of_the_token(suite: Path, tmp_path: Path) -> None:
    """The proxy is what lets the suite in: straight at the endpoint, the handshake fails (401)."""
    async with language_server(tmp_path) as session:
        process = await asyncio.create_subprocess_exec(
            str(suite),
            "server",
            "--url",
            session.url,
            "--scenario",
            "ping",
            "-o",
            str(tmp_path / "results"),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        printed, _ = await asyncio.wait_for(process.communicate(), 120)
        (found,) = (tmp_path / "results").glob("*/checks.json")
        checks = json.loads(found.read_text())
        assert [c["status"] for c in checks] == ["FAILURE"], printed.decode(errors="replace")
        assert "a bearer token is needed" in str(checks[0].get("errorMessage")), checks
