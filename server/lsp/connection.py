"""One client connection: a pygls server bound to the shared engine and to its own view.

``PerflineServer`` owns what is protocol state (the pygls session, the subscriptions to
the engine and to its baseline comparison service, progress tokens, the configuration
errors already shown, the client's capabilities) and a ``ConnectionView`` for everything
else. Its handlers live in the feature modules of this package, one module
per request or feature group (``FEATURE_MODULES``), each handler converting the request,
asking the view and converting the answer. All connections of a process share one
``EngineHost``. No cost beyond the handlers'.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from perfline import __version__
from perfline.server import api
from perfline.server.baselines.compare_service import CompareService
from perfline.server.engine import Engine, EngineEvent
from perfline.server.host import EngineHost
from perfline.server.lsp import (
    code_lens,
    commands,
    configuration,
    convert,
    custom_requests,
    diagnostics,
    engine_events,
    hover,
    inlay_hints,
    lifecycle,
    text_sync,
)
from perfline.server.lsp.features import Feature
from perfline.server.lsp.protocol import PerflineProtocol
from perfline.server.lsp.wire import HintEncoder
from perfline.server.scheduler.boundary import PathOutside, PathRefused
from perfline.server.view.connection import ConnectionView

log = logging.getLogger(__name__)

#: The modules whose ``FEATURES`` a connection registers, in this order.
FEATURE_MODULES = (
    lifecycle,
    configuration,
    text_sync,
    inlay_hints,
    hover,
    code_lens,
    commands,
    custom_requests,
)


class PerflineServer(LanguageServer):
    """One client's session on the shared engine."""

    def __init__(self, host: EngineHost) -> None:
        super().__init__("perfline", __version__, protocol_cls=PerflineProtocol)
        assert isinstance(self.protocol, PerflineProtocol)
        self.protocol.shared = host.shared
        self.host = host
        self.view = ConnectionView(self.engine, self.comparisons)
        self.hint_wire = HintEncoder()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.unsubscribe: Callable[[], None] | None = None
        self.progress_tokens: dict[str, str] = {}
        self.progress_timers: dict[str, asyncio.TimerHandle] = {}
        self.initialized = False
        self.on_disconnect: Callable[[], None] | None = None
        #: Configuration error texts already shown with ``window/showMessage``.
        self.shown_config_errors: set[str] = set()
        for module in FEATURE_MODULES:
            for item in module.FEATURES:
                _register(self, item)

    def write_to_stdout(self, stop: threading.Event) -> None:
        """Answer on this process's stdout (one editor over stdio); ``stop`` is set by the
        client's ``shutdown`` (pygls' stop event)."""
        self._stop_event = stop
        self.protocol.set_writer(StdoutWriter(sys.stdout.buffer))

    def write_to_stream(self, writer: asyncio.StreamWriter) -> None:
        """Answer on an asyncio stream (a TCP or Unix socket connection)."""
        self.protocol.set_writer(StreamWriter(writer))

    def report_server_error(self, error: Exception, source: Any) -> None:
        log.error("server error (%s): %s", getattr(source, "__name__", source), error)

    def disconnect(self) -> None:
        if self.unsubscribe is not None:
            self.unsubscribe()
            self.unsubscribe = None
        if self.on_disconnect is not None:
            self.on_disconnect()

    def engine(self) -> Engine:
        engine = self.host.engine()
        self.attach(engine)
        return engine

    def attach(self, engine: Engine) -> None:
        """Subscribe to the engine's events (once), handing them over to this loop."""
        if self.unsubscribe is not None:
            return
        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        loop = self.loop

        def listener(event: EngineEvent) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(engine_events.on_engine_event, self, event)

        unsubscribe_engine = engine.subscribe(listener)
        service = engine.comparisons

        def compared(jobs: tuple[str, ...]) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(engine_events.on_compared, self, jobs)

        unsubscribe_service = service.subscribe(compared)

        def unsubscribe() -> None:
            unsubscribe_engine()
            unsubscribe_service()

        self.unsubscribe = unsubscribe

    def comparisons(self) -> CompareService | None:
        """The engine's baseline comparisons (shared by every connection)."""
        return self.engine().comparisons

    def client_path(self, uri: str, *, refuse: bool = True) -> str | None:
        """The real path of a document URI inside the workspace (``Engine.
        resolve_client_path``), ``None`` for a URI outside it or not a ``file:`` one (no
        figures there); a URI that cannot name a file (too long, a NUL byte, a symlink
        loop) is -32602 with ``refuse`` (requests), else ``None`` (notifications)."""
        problem = None
        if len(uri) > api.MAX_FILE_PARAM:
            problem = f"the document URI is longer than {api.MAX_FILE_PARAM} characters"
        else:
            path = convert.path_of(uri)
            if path is None:
                return None
            try:
                return str(self.engine().resolve_client_path(path))
            except PathOutside:
                return None
            except PathRefused as error:
                problem = f"textDocument.uri: {error}"
        if refuse:
            raise JsonRpcInvalidParams(problem)
        log.info("ignored a notification: %s", problem)
        return None

    def document(self, uri: str) -> Any:
        """The client's copy of a document, or None when it is not open."""
        try:
            return self.workspace.get_text_document(uri)
        except Exception:
            return None

    def refresh(self) -> None:
        """Ask the client to re-request hints and lenses (when it supports refreshes)."""
        caps = self.client_capabilities.workspace if self.initialized else None
        if caps is None:
            return
        if caps.inlay_hint is not None and caps.inlay_hint.refresh_support:
            self.workspace_inlay_hint_refresh(None)
        if caps.code_lens is not None and caps.code_lens.refresh_support:
            self.workspace_code_lens_refresh(None)

    def publish_diagnostics(self) -> None:
        diagnostics.publish(self)

    def log_problems(self, problems: tuple[str, ...]) -> None:
        for problem in problems:
            log.warning("%s", problem)
            if self.initialized:
                self.window_log_message(
                    types.LogMessageParams(
                        type=types.MessageType.Warning, message=f"perfline: {problem}"
                    )
                )


class StreamWriter:
    """pygls' writer interface over an asyncio ``StreamWriter`` (nothing is written once
    the stream is closing)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    def write(self, data: bytes) -> None:
        if not self._writer.is_closing():
            self._writer.write(data)

    def close(self) -> None:
        self._writer.close()


def _register(server: PerflineServer, item: Feature) -> None:
    if item.command:
        server.command(item.method)(item.handler)
    elif item.options is not None:
        server.feature(item.method, item.options)(item.handler)
    else:
        server.feature(item.method)(item.handler)
