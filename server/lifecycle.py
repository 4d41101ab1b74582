"""The session's lifecycle: ``initialize``, ``initialized``, settings changes and ``shutdown``.

``initialize`` negotiates the position encoding and reads the workspace root and the first settings;
``initialized`` pulls the settings and runs the features' ``on_initialized`` hooks; ``shutdown`` flushes and
closes everything (``TetherServer.close_down``). :mod:`.runtime_methods` declares them with document sync and
the introspection endpoints.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .encodings import choose_encoding
from .files import uri_to_path
from .loopwatch import LoopWatch
from .settings import extract_tether

if TYPE_CHECKING:
    from .app import TetherServer

log = logging.getLogger(__name__)


def _watch_parent(ls: TetherServer, pid: int) -> None:
    """Exit when the editor that started us is gone (no orphaned servers), through the normal path: the
    shutdown hooks run, so pending writes are not lost."""

    def loop() -> None:
        while True:
            time.sleep(2)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                log.warning("parent process %d is gone; exiting", pid)
                ls.stop_requested = True
                ls.stop_serving()
                return
            except PermissionError:
                pass

    threading.Thread(target=loop, name="parent-watch", daemon=True).start()


def initialize(ls: TetherServer, params: types.InitializeParams) -> None:
    """Negotiate the position encoding, read the workspace root and the initial settings."""
    ls.client_log.bind(asyncio.get_event_loop())
    ls.workers.bind_loop(asyncio.get_event_loop())
    if LoopWatch.wanted():
        ls.loop_watch.start()
    general = params.capabilities.general
    offered = [str(getattr(e, "value", e)) for e in (general.position_encodings or [])] if general else []
    ls.encoding = choose_encoding(offered)  # the same choice TetherProtocol announced
    root = params.root_uri or (params.workspace_folders[0].uri if params.workspace_folders else None)
    ls.workspace_root = uri_to_path(root) if root else (Path(params.root_path) if params.root_path else None)
    ls.init_options = params.initialization_options
    ls.apply_settings(extract_tether(params.initialization_options))
    if params.process_id and params.process_id != os.getpid():
        _watch_parent(ls, params.process_id)
    log.info("%s %s: position encoding %s, root %s", ls.name, ls.version, ls.encoding, ls.workspace_root)
    asyncio.get_event_loop().call_soon(resume_collection)  # once this answer is written


def resume_collection() -> None:
    """End of start-up: ``tether-lsp`` turned the cyclic collector off while it imports (``tether_lsp.__main__``;
    its passes over the growing heap were ~8% of the instructions up to ``initialize``). What start-up made
    lives as long as the process: frozen, it is never walked again, and collection resumes for the rest."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


async def initialized(ls: TetherServer, _params: types.InitializedParams) -> None:
    """Register for configuration changes, pull the settings, start the features' first work."""
    caps = ls.client_capabilities.workspace
    if caps and caps.did_change_configuration and caps.did_change_configuration.dynamic_registration:
        try:
            await ls.client_register_capability_async(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(id="tether-config", method=types.WORKSPACE_DID_CHANGE_CONFIGURATION)
                    ]
                )
            )
        except Exception as exc:  # the client refused: settings still come from initializationOptions
            log.info("client did not accept didChangeConfiguration registration: %s", exc)
    await _pull_configuration(ls)
    await ls.hooks.initialized(ls)
    # numpy (bulk positions, selector indexes, the YAML nesting check) is left out of start-up, but the first
    # document needs it: import it now, in a worker, while the editor has yet to send one (76 ms that the
    # first YAML documentInfo used to wait for). Then it is frozen with the rest below.
    with contextlib.suppress(Exception):  # a worker pool already closed: the first use imports it instead
        await ls.run_blocking(importlib.import_module, "numpy")
    # Everything loaded so far (modules, generated converters) lives as long as the process: keep it out
    # of the cyclic collector, whose full passes would otherwise walk it all (40-45 ms each, measured, a
    # stall for the loop and every worker alike).
    gc.collect()
    gc.freeze()


async def did_change_configuration(ls: TetherServer, params: types.DidChangeConfigurationParams) -> None:
    """Re-read the `tether` settings."""
    if not await _pull_configuration(ls):
        pushed = extract_tether(params.settings, bare=False)
        if pushed is not None:
            ls.apply_settings(extract_tether(ls.init_options), pushed)


async def shutdown(ls: TetherServer, *_args: Any) -> None:
    """Flush pending writes, stop background work, close the databases."""
    ls.prepare_close()
    await asyncio.to_thread(ls.close_down)  # not the worker pool: close_down waits for it


async def _pull_configuration(ls: TetherServer) -> bool:
    """Re-read ``workspace/configuration`` section ``tether``; False when the client cannot answer."""
    caps = ls.client_capabilities.workspace
    if not (caps and caps.configuration):
        return False
    try:
        result = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="tether")])
        )
    except Exception as exc:
        log.warning("workspace/configuration failed: %s", exc)
        return False
    pulled = result[0] if result else None
    ls.apply_settings(extract_tether(ls.init_options), pulled if isinstance(pulled, dict) else None)
    return True
