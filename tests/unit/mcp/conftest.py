"""An in-process agents' front over a fresh root per test, reached through the MCP SDK's client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcpclient import McpClient
from tether_lsp.mcp.context import Context
from tether_lsp.mcp.server import build
from tether_lsp.mcp.settings import schema


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    folder.mkdir()
    return folder


@pytest.fixture
def context(root: Path) -> Context:
    return Context([root])


@pytest.fixture
def client(context: Context) -> Iterator[McpClient]:
    with McpClient(build(context)) as client:
        yield client


def context_with(root: Path, **tether: object) -> Context:
    """A context whose settings are the given ``tether`` object (``limits={"maxFileBytes": 100}``)."""
    settings, warnings = schema().parse(dict(tether))
    assert not warnings, warnings
    return Context([root], settings)
