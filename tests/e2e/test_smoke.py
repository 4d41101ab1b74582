from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.helpers import capabilities, open_doc, raw_request, server_config


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities()))
    yield
    await lsp_client.shutdown_session()


async def test_selection(client: LanguageClient) -> None:
    open_doc(client, "file:///x.py", "def f(a):\n    return a + 1\n")
    res = await client.text_document_selection_range_async(
        types.SelectionRangeParams(
            text_document=types.TextDocumentIdentifier(uri="file:///x.py"), positions=[types.Position(1, 12)]
        )
    )
    print(res)
    with pytest.raises(Exception) as e:
        await raw_request(client, "textDocument/selectionRange", {"textDocument": {"uri": 5}, "positions": []})
    print(e.value, getattr(e.value, "data", None))
