"""The three transports (stdio, TCP, WebSocket) around Tether's reader (:mod:`.transport`).

Each reads messages on the event loop and hands every body to ``protocol.receive``; SIGINT and SIGTERM end
the process through the same path as a vanished parent: the shutdown hooks run (pending writes are
flushed), then the loop stops. The stdin reader runs in a daemon thread so that nothing waits on a
blocked ``read`` at exit.

A server process serves one client, as editors start one server each: over TCP and WebSocket the first
connection is the session, later ones are closed at once (another client must not take over the writer),
and the process ends when that client sends ``exit`` or disconnects. ``exit`` raises ``SystemExit`` inside
``receive``; it ends the reading here, as the end of the stream does, so it never escapes a connection
callback (where asyncio would log it as an unhandled error).

The transports know the server only as :class:`Served` (what they call on it), so that this module does not
import the server that starts it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from pygls.io_ import StdoutWriter

from .transport import Framing, LineReader, StdinReader, StreamReaderAdapter

if TYPE_CHECKING:
    from .protocol import TetherProtocol

log = logging.getLogger(__name__)


class Served(Protocol):
    """What the transports need from the server they serve."""

    protocol: TetherProtocol
    #: Set here once serving starts: ends the serving loop from any thread.
    stop_serving: Callable[[], None]

    @property
    def stopping(self) -> bool:
        """Shutting down: what is cancelled now is no error."""

    def max_message_bytes(self) -> int: ...

    def exit_on_signal(self, signum: int) -> None: ...

    def close_down(self) -> None:
        """Flush and stop everything; blocks, runs after the loop has ended."""


def _receive(server: Served, body: bytes) -> bool:
    """Hand one message to the protocol; False once the client has sent ``exit``."""
    try:
        server.protocol.receive(body)
    except SystemExit:
        return False
    return True


async def _read_until_closed(server: Served, reader: LineReader) -> None:
    framing = Framing(reader, server.max_message_bytes)
    while (body := await framing.next_body()) is not None and _receive(server, body):
        pass


def _run(server: Served, main: Callable[[], Any]) -> None:
    """Run ``main`` until it returns, the client exits, or a signal / lost parent asks the server to stop."""

    async def runner() -> None:
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(main())

        def stop() -> None:
            loop.call_soon_threadsafe(task.cancel)

        server.stop_serving = stop
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(signum, server.exit_on_signal, signum)
        stopped = False

        def quiet_cancellations(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            # Stopping cancels what is still running (``shutdown`` cancels the jobs queued for workers, then
            # asyncio.run cancels the tasks left, an ``initialized`` hook or a request in flight); pygls'
            # callbacks then read the cancelled result. That is the server stopping, not an error to log.
            if isinstance(context.get("exception"), asyncio.CancelledError) and (stopped or server.stopping):
                log.debug("cancelled as the server stops: %s", context.get("message"))
                return
            loop.default_exception_handler(context)

        loop.set_exception_handler(quiet_cancellations)
        with contextlib.suppress(asyncio.CancelledError):
            await task
        stopped = True

    try:
        asyncio.run(runner())
    except BrokenPipeError:
        log.error("the connection to the client is lost; exiting")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.close_down()


def serve_stdio(server: Served) -> None:
    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    _run(server, lambda: _read_until_closed(server, StdinReader(sys.stdin.fileno())))


def serve_tcp(server: Served, host: str, port: int) -> None:
    async def main() -> None:
        done = asyncio.Event()
        taken = False

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal taken
            if taken:
                log.warning("refused a second connection from %s: this server serves one client", _peer(writer))
                writer.close()
                return
            taken = True
            server.protocol.set_writer(writer)
            try:
                await _read_until_closed(server, StreamReaderAdapter(reader))
            finally:
                done.set()

        listener = await asyncio.start_server(connection, host, port)
        log.info("serving on %s", ", ".join(str(s.getsockname()) for s in listener.sockets))
        async with listener:
            await done.wait()

    _run(server, main)


def _peer(writer: asyncio.StreamWriter) -> object:
    return writer.get_extra_info("peername")


def serve_ws(server: Served, host: str, port: int) -> None:
    try:
        from websockets.asyncio.server import ServerConnection, serve
        from websockets.exceptions import ConnectionClosed
    except ImportError:
        log.error("--ws needs the websockets package: pip install 'tether-lsp[ws]'")
        sys.exit(1)
    from pygls.io_ import WebSocketWriter

    async def main() -> None:
        done = asyncio.Event()
        taken = False

        async def connection(websocket: ServerConnection) -> None:
            nonlocal taken
            if taken:
                log.warning(
                    "refused a second connection from %s: this server serves one client", websocket.remote_address
                )
                await websocket.close(1013, "this server serves one client")  # 1013: try again later
                return
            taken = True
            server.protocol.set_writer(WebSocketWriter(websocket), include_headers=False)
            try:
                while _receive(server, await websocket.recv(decode=False)):
                    pass
            except ConnectionClosed:
                pass
            finally:
                done.set()

        async with serve(connection, host, port, max_size=server.max_message_bytes()) as listener:
            log.info("serving on %s", ", ".join(str(s.getsockname()) for s in listener.sockets))
            await done.wait()

    _run(server, main)
