"""Settings over stdio: initializationOptions, workspace/configuration pull, didChangeConfiguration re-read."""

from __future__ import annotations

import asyncio

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.helpers import capabilities, server_config


@pytest_lsp.fixture(config=server_config())
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()


async def wait_for_log(client: LanguageClient, needle: str, timeout: float = 5) -> str:
    """The first log message containing ``needle``, waiting for log messages as they arrive."""
    try:
        async with asyncio.timeout(timeout):
            while True:
                logged = client.protocol.wait_for_notification("window/logMessage")  # before looking: no race
                for message in client.log_messages:
                    if needle in message.message:
                        return message.message
                await asyncio.wrap_future(logged)
    except TimeoutError:
        raise AssertionError(
            f"no log message containing {needle!r}: {[m.message for m in client.log_messages]}"
        ) from None


async def test_initialization_options_are_validated(client: LanguageClient) -> None:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(),
            initialization_options={"tether": {"log": {"level": 3}, "bogus": {"x": 1}}},
        )
    )
    warning = await wait_for_log(client, "tether.log.level")
    assert "expected a string" in warning and 'keeping the default "info"' in warning
    assert "tether.bogus.x" in await wait_for_log(client, "unknown settings")
    assert [m.type for m in client.log_messages if "unknown settings" in m.message] == [types.MessageType.Warning]


async def test_configuration_is_pulled_and_reread_on_change(client: LanguageClient) -> None:
    client.set_configuration({"log": {"level": "warning"}, "database": {"url": 42}}, section="tether")
    await client.initialize_session(types.InitializeParams(capabilities=capabilities(configuration=True)))
    assert "tether.database.url" in await wait_for_log(client, "database.url")
    client.set_configuration({"log": {"level": "debug"}, "database": {"url": None}, "newKey": 1}, section="tether")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert "tether.newKey" in await wait_for_log(client, "newKey")


async def test_pushed_settings_without_configuration_support(client: LanguageClient) -> None:
    await client.initialize_session(types.InitializeParams(capabilities=capabilities(configuration=False)))
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"tether": {"log": {"level": "loud"}}})
    )
    assert "expected one of debug, info, warning, error" in await wait_for_log(client, "tether.log.level")
