"""The LSP / JSON-RPC shell: translates protocol messages to engine queries and
engine events to notifications. One ``PerflineServer`` per client connection;
all connections of a process share one ``EngineHost``.

Features: inlay hints, hover, code lenses, diagnostics (advice, failed
checks, job and config errors), ``workspace/inlayHint/refresh`` and
``workspace/codeLens/refresh`` when the client supports them, ``$/progress``
for runs longer than 0.5 s, edit tracking (annotations follow the text and
are marked stale), and the ``perfline/*`` requests of ``server.api`` plus the
``perfline/resultChanged`` notification. Columns use the negotiated position
encoding (UTF-8, UTF-16 or UTF-32).

Hint settings (``server.settings``: metric, format, share threshold) are per
connection: read from ``initializationOptions``, then pulled with
``workspace/configuration`` when the client supports it, and again on every
``workspace/didChangeConfiguration`` (pulled, else taken from the pushed
settings); a change re-renders hints and lenses and asks the client to refresh.
"""

from __future__ import annotations

import asyncio
import bisect
import inspect
import itertools
import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
from lsprotocol import types as t
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCResponseMessage, LanguageServerProtocol, lsp_method
from pygls.uris import from_fs_path, to_fs_path

from perfline import __version__
from perfline.core.json_codec import encode_compact
from perfline.core.workspace_config import CONFIG_FILE_NAME
from perfline.server import api, figures
from perfline.server.edits import LineTracker
from perfline.server.engine import Engine, EngineEvent
from perfline.server.host import EngineHost
from perfline.server.index import LineDiagnostic, LineEntry
from perfline.server.presentation import UNFIGURED, code_blocks, hover_markdown
from perfline.server.settings import (
    SECTION,
    HintSettings,
    lens_figure,
    line_label,
    read_settings,
    section_of,
)

log = logging.getLogger(__name__)
timing_log = logging.getLogger("perfline.server.timing")

#: An inlay-hint row: current 0-based line, label, tooltip.
HintRow = tuple[int, str, str]

#: Runs shorter than this (seconds) get no ``$/progress``; tests may lower it.
PROGRESS_DELAY = float(os.environ.get("PERFLINE_PROGRESS_DELAY", "0.5"))
_TOKENS = itertools.count(1)
STALE_MARK = " (stale)"

#: Globs the client watches for us when it supports dynamic registration.
WATCH_GLOBS = (
    "**/perfline.toml",
    "**/*.json",
    "**/*.etrecord",
    "**/*.etdump",
    "**/*.etdp",
    "**/*.vgf",
    "**/*.tosa",
    "**/*.dat",
    "**/*.pte",
    "**/*.py",
)


@attrs.define
class RawRequest:
    """A ``perfline/*`` request whose params stay a plain JSON object."""

    id: Any
    method: str
    jsonrpc: str
    params: Any = None


class PerflineProtocol(LanguageServerProtocol):
    """Plain-dict params for ``perfline/*``; in a shared daemon ``exit`` ends the
    connection only, never the process."""

    shared = False

    def get_message_type(self, method: str) -> Any:  # type: ignore[override]
        if method.startswith("perfline/") and method != api.RESULT_CHANGED:
            return RawRequest  # also unknown perfline/* methods: they get "method not found"
        return super().get_message_type(method)

    def _send_data(self, data: Any) -> None:
        # A response whose result was encoded ahead (inlay hints: one JSON text per hint,
        # kept with the hints) is written as it is, without walking it again.
        # A perfline/* result (a plain dict, e.g. a whole document) is encoded by the same
        # C-speed codec as the CLI's output (core.json_codec.encode_compact).
        result = getattr(data, "result", None)
        plain = type(data) is JsonRPCResponseMessage and type(result) is dict
        if not (isinstance(result, EncodedArray) or plain) or self.writer is None:
            super()._send_data(data)
            return
        if isinstance(result, EncodedArray):
            body = f'{{"id":{json.dumps(data.id)},"jsonrpc":"2.0","result":{result.text()}}}'
            payload = body.encode(self.CHARSET)
        else:
            payload = encode_compact({"id": data.id, "jsonrpc": "2.0", "result": result})
        if self._include_headers:
            header = (
                f"Content-Length: {len(payload)}\r\n"
                f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            )
            payload = header.encode(self.CHARSET) + payload
        written = self.writer.write(payload)
        if inspect.isawaitable(written):
            task = asyncio.ensure_future(written)
            _PENDING_WRITES.add(task)
            task.add_done_callback(_PENDING_WRITES.discard)

    def _serialize_message(self, data: Any) -> Any:
        # Inlay hints and the perfline/* results are built as plain JSON values; walking
        # thousands of them through cattrs would dominate the requests' latency.
        if isinstance(data, JsonRPCResponseMessage | t.InlayHintResponse) and _plain(data.result):
            return {"id": data.id, "jsonrpc": data.jsonrpc, "result": data.result}
        return super()._serialize_message(data)

    @lsp_method(t.EXIT)
    def lsp_exit(self, *args: Any) -> Any:
        if not self.shared:
            yield from super().lsp_exit(*args)
            return
        server = self._server
        if isinstance(server, PerflineServer):
            server.disconnect()
        yield from ()


#: Writes still in flight (kept referenced until done).
_PENDING_WRITES: set[asyncio.Future[Any]] = set()


class EncodedArray:
    """A JSON array given as the encoded texts of its items (written out by ``_send_data``)."""

    __slots__ = ("items",)

    def __init__(self, items: list[str]) -> None:
        self.items = items

    def text(self) -> str:
        return "[" + ",".join(self.items) + "]"


def _plain(value: Any) -> bool:
    """A dict, or a list of dicts, as built by this module (no attrs objects inside)."""
    if isinstance(value, dict):
        return True
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


class PerflineServer(LanguageServer):
    """One client's session on the shared engine."""

    def __init__(self, host: EngineHost) -> None:
        super().__init__("perfline", __version__, protocol_cls=PerflineProtocol)
        assert isinstance(self.protocol, PerflineProtocol)
        self.protocol.shared = host.shared
        self.host = host
        self.trackers: dict[str, LineTracker] = {}
        self.published: set[str] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.unsubscribe: Callable[[], None] | None = None
        self.progress_tokens: dict[str, str] = {}
        self.progress_timers: dict[str, asyncio.TimerHandle] = {}
        self.initialized = False
        self.on_disconnect: Callable[[], None] | None = None
        self._line_cache: dict[str, tuple[tuple[int, int, int, int], Any, list[HintRow]]] = {}
        self.hint_settings = HintSettings()
        self.settings_version = 0
        self._totals: dict[tuple[str, int, figures.MetricKey], float | None] = {}
        self._totals_version = -1
        self._hint_cache: dict[str, tuple[Any, list[int], list[str]]] = {}
        _register(self)

    def report_server_error(self, error: Exception, source: Any) -> None:
        log.error("server error (%s): %s", getattr(source, "__name__", source), error)

    def disconnect(self) -> None:
        if self.unsubscribe is not None:
            self.unsubscribe()
            self.unsubscribe = None
        if self.on_disconnect is not None:
            self.on_disconnect()

    # ------------------------------------------------------------- engine link

    def engine(self) -> Engine:
        engine = self.host.engine()
        self.attach(engine)
        return engine

    def attach(self, engine: Engine) -> None:
        if self.unsubscribe is not None:
            return
        try:
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        loop = self.loop

        def listener(event: EngineEvent) -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(self.on_engine_event, event)

        self.unsubscribe = engine.subscribe(listener)

    def on_engine_event(self, event: EngineEvent) -> None:
        try:
            self._on_engine_event(event)
        except Exception:
            log.exception("handling engine event %s", event)

    def _on_engine_event(self, event: EngineEvent) -> None:
        if event.kind == "started" and event.job:
            self._schedule_progress(event.job)
            return
        if event.kind == "finished" and event.job:
            self._end_progress(event.job)
            return
        if event.kind == "result" and event.job and not event.stale:
            engine = self.host.engine()
            good = engine.result(event.job)
            files = set(good.index.lines) if good is not None else set()
            for uri, tracker in self.trackers.items():
                if to_fs_path(uri) in files:
                    doc = self._document(uri)
                    tracker.reset(doc.source if doc is not None else None)
        self.protocol.notify(
            api.RESULT_CHANGED,
            {
                "kind": event.kind,
                "job": event.job,
                "generation": event.generation,
                "stale": event.stale,
                "error": event.error,
            },
        )
        if self.initialized:
            self.refresh()
            if event.kind == "result" and timing_log.isEnabledFor(logging.INFO):
                sent = time.monotonic()
                timing_log.info(
                    "job=%s generation=%d refresh=%.6f", event.job, event.generation, sent
                )
            self.publish_all_diagnostics()

    def refresh(self) -> None:
        caps = self.client_capabilities.workspace if self.initialized else None
        if caps is None:
            return
        if caps.inlay_hint is not None and caps.inlay_hint.refresh_support:
            self.workspace_inlay_hint_refresh(None)
        if caps.code_lens is not None and caps.code_lens.refresh_support:
            self.workspace_code_lens_refresh(None)

    # ---------------------------------------------------------------- settings

    def apply_settings(self, section: Any) -> bool:
        """Use the hint settings of a ``perfline`` section; True if they changed."""
        readout = read_settings(section_of(section) if section is not None else None)
        for problem in readout.problems:
            log.warning("%s", problem)
            if self.initialized:
                self.window_log_message(
                    t.LogMessageParams(type=t.MessageType.Warning, message=f"perfline: {problem}")
                )
        if readout.settings == self.hint_settings:
            return False
        self.hint_settings = readout.settings
        self.settings_version += 1
        return True

    def can_pull_configuration(self) -> bool:
        workspace = self.client_capabilities.workspace
        return bool(workspace is not None and workspace.configuration)

    async def pull_settings(self) -> Any:
        """The client's ``perfline`` section (``workspace/configuration``), or None."""
        engine = self.host.engine()
        item = t.ConfigurationItem(section=SECTION, scope_uri=from_fs_path(str(engine.root)))
        try:
            answers = await self.workspace_configuration_async(t.ConfigurationParams([item]))
        except Exception as error:
            log.warning("workspace/configuration failed: %s", error)
            return None
        if not answers:
            return None
        section = answers[0]
        return {SECTION: section} if isinstance(section, dict) else None

    def total_of(self, entry: LineEntry, key: figures.MetricKey) -> float | None:
        """The model total of ``key`` in the result behind ``entry`` (cached per engine state)."""
        engine = self.host.engine()
        if self._totals_version != engine.version:
            self._totals = {}
            self._totals_version = engine.version
        cache_key = (entry.job, entry.result_index, key)
        if cache_key not in self._totals:
            good = engine.result(entry.job)
            results = good.document.get("results") if good is not None else None
            total = None
            if isinstance(results, list) and entry.result_index < len(results):
                total = figures.model_total(results[entry.result_index], key)
            self._totals[cache_key] = total
        return self._totals[cache_key]

    # ---------------------------------------------------------------- progress

    def _schedule_progress(self, job: str) -> None:
        if not self.initialized or self.loop is None:
            return
        window = self.client_capabilities.window
        if window is None or not window.work_done_progress:
            return
        self._cancel_progress_timer(job)
        self.progress_timers[job] = self.loop.call_later(
            PROGRESS_DELAY, lambda: asyncio.ensure_future(self._begin_progress(job))
        )

    def _cancel_progress_timer(self, job: str) -> None:
        timer = self.progress_timers.pop(job, None)
        if timer is not None:
            timer.cancel()

    async def _begin_progress(self, job: str) -> None:
        self.progress_timers.pop(job, None)
        engine = self.host.engine()
        if engine.running_since(job) is None or job in self.progress_tokens:
            return
        token = f"perfline/{job}/{next(_TOKENS)}"
        self.progress_tokens[job] = token
        try:
            await self.work_done_progress.create_async(token)
        except Exception:
            self.progress_tokens.pop(job, None)
            return
        self.work_done_progress.begin(
            token, t.WorkDoneProgressBegin(title=f"perfline: analysing {job}", cancellable=False)
        )
        if self.progress_tokens.get(job) != token:
            # The run ended while the client created the token.
            self.work_done_progress.end(token, t.WorkDoneProgressEnd(message="done"))

    def _end_progress(self, job: str) -> None:
        self._cancel_progress_timer(job)
        token = self.progress_tokens.pop(job, None)
        if token is not None and token in self.work_done_progress.tokens:
            self.work_done_progress.end(token, t.WorkDoneProgressEnd(message="done"))

    # ------------------------------------------------------------- documents

    def _document(self, uri: str) -> Any:
        try:
            return self.workspace.get_text_document(uri)
        except Exception:
            return None

    def tracker(self, uri: str) -> LineTracker | None:
        return self.trackers.get(uri)

    def current_line(self, uri: str, analysis_line: int) -> int | None:
        """0-based current line of a 1-based analysis line."""
        tracker = self.trackers.get(uri)
        if tracker is None:
            return analysis_line - 1
        return tracker.current(analysis_line - 1)

    def entries_by_current_line(self, uri: str) -> dict[int, list[LineEntry]]:
        return self._lines(uri)[0]

    def hint_rows(self, uri: str) -> list[HintRow]:
        """(current line, label, tooltip) of every annotated line, sorted by line."""
        return self._lines(uri)[1]

    def encoded_hints(self, uri: str, doc: Any) -> tuple[list[int], list[str]]:
        """Every hint of a document as its encoded ``InlayHint`` JSON text, with the hints'
        lines, cached per version."""
        rows = self.hint_rows(uri)
        key = (id(rows), doc.version, len(doc.source))
        cached = self._hint_cache.get(uri)
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        lines = doc.lines
        kind = int(t.InlayHintKind.Type)
        numbers: list[int] = []
        encoded: list[str] = []
        for current, text, tooltip in rows:
            if current >= len(lines):
                continue
            numbers.append(current)
            hint = {
                "position": {
                    "line": current,
                    "character": _columns(doc, lines[current].rstrip("\r\n")),
                },
                "label": text,
                "kind": kind,
                "paddingLeft": True,
                "tooltip": tooltip,
            }
            encoded.append(json.dumps(hint))
        self._hint_cache[uri] = (key, numbers, encoded)
        return numbers, encoded

    def _lines(self, uri: str) -> tuple[dict[int, list[LineEntry]], list[HintRow]]:
        """Entries and hint rows by current line, cached until the engine or the edits change."""
        engine = self.engine()
        tracker = self.trackers.get(uri)
        key = (
            engine.version,
            tracker.version if tracker else -1,
            id(tracker),
            self.settings_version,
        )
        cached = self._line_cache.get(uri)
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        path = to_fs_path(uri)
        found: dict[int, list[LineEntry]] = {}
        if path is not None:
            for number, entries in engine.line_entries(path).items():
                current = self.current_line(uri, number)
                if current is not None:
                    found.setdefault(current, []).extend(entries)
        rows: list[HintRow] = []
        for current, entries in sorted(found.items()):
            label = line_label(entries, self.hint_settings, self.total_of)
            if not label:
                continue
            text = label
            if self.is_stale(uri, entries):
                text += STALE_MARK
            tooltip = ", ".join(sorted({f"{e.name} ({e.job})" for e in entries}))
            rows.append((current, text, tooltip))
        self._line_cache[uri] = (key, found, rows)
        return found, rows

    def is_stale(self, uri: str, entries: list[LineEntry]) -> bool:
        tracker = self.trackers.get(uri)
        if tracker is not None and tracker.edited:
            return True
        engine = self.engine()
        for entry in entries:
            info = engine.job(entry.job)
            if info is not None and info.stale:
                return True
        return False

    # ----------------------------------------------------------- diagnostics

    def publish_all_diagnostics(self) -> None:
        engine = self.engine()
        by_file: dict[str, list[t.Diagnostic]] = {}
        for path in engine.annotated_files():
            if not Path(path).is_absolute():
                continue
            uri = from_fs_path(path)
            if uri is None:
                continue
            for item in engine.line_diagnostics(path):
                diagnostic = self._line_diagnostic(uri, item)
                if diagnostic is not None:
                    by_file.setdefault(uri, []).append(diagnostic)
            by_file.setdefault(uri, [])
        config_uri = from_fs_path(str(engine.root / CONFIG_FILE_NAME))
        error = engine.config_error
        if error is not None and config_uri is not None:
            for problem in error.config_problems:
                line = max(problem.line - 1, 0)
                by_file.setdefault(config_uri, []).append(
                    t.Diagnostic(
                        range=_line_range(line, problem.column),
                        message=f"{problem.key}: {problem.message}"
                        if problem.key
                        else problem.message,
                        severity=t.DiagnosticSeverity.Error,
                        source="perfline",
                        code="config",
                    )
                )
        for info in engine.jobs():
            if info.error is None:
                continue
            if info.error.file is not None:
                target = engine.root / info.error.file
                line = max((info.error.line or 1) - 1, 0)
            elif info.config_line is not None:
                target = engine.root / CONFIG_FILE_NAME
                line = info.config_line - 1
            elif info.inputs:
                target = engine.root / info.inputs[0]
                line = 0
            else:
                continue
            uri = from_fs_path(str(target))
            if uri is None:
                continue
            suffix = " (serving the last good result)" if info.has_result else ""
            by_file.setdefault(uri, []).append(
                t.Diagnostic(
                    range=_line_range(line, 0),
                    message=f"job {info.name}: {info.error.message}{suffix}",
                    severity=t.DiagnosticSeverity.Error,
                    source="perfline",
                    code="job-error",
                )
            )
        for uri in self.published - set(by_file):
            self.text_document_publish_diagnostics(
                t.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )
        for uri, items in by_file.items():
            self.text_document_publish_diagnostics(
                t.PublishDiagnosticsParams(uri=uri, diagnostics=items)
            )
        self.published = set(by_file)

    def _line_diagnostic(self, uri: str, item: LineDiagnostic) -> t.Diagnostic | None:
        current = self.current_line(uri, item.line)
        if current is None:
            return None
        severity = {
            "error": t.DiagnosticSeverity.Error,
            "warning": t.DiagnosticSeverity.Warning,
        }.get(item.severity, t.DiagnosticSeverity.Information)
        doc = self._document(uri) if uri in self.trackers else None
        end = 0
        if doc is not None and current < len(doc.lines):
            end = _columns(doc, doc.lines[current].rstrip("\r\n"))
        return t.Diagnostic(
            range=t.Range(t.Position(current, 0), t.Position(current, end)),
            message=item.message,
            severity=severity,
            source=f"perfline ({item.job})",
            code=item.code,
        )


def _columns(doc: Any, text: str) -> int:
    """Length of ``text`` in the code units of the negotiated position encoding."""
    raw = doc.position_codec.encoding
    encoding = str(getattr(raw, "value", raw))
    if text.isascii():
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def _line_range(line: int, column: int) -> t.Range:
    start = max(column - 1, 0)
    return t.Range(t.Position(line, start), t.Position(line, start + 1 if column else 10_000))


def _api_call(ls: PerflineServer, method: str, params: Any) -> Any:
    handler = api.METHODS[method]
    engine = ls.engine()
    try:
        if method == "perfline/lineAnnotations":

            def line_map(path: Path, line: int) -> int | None:
                uri = from_fs_path(str(path))
                current = ls.current_line(uri, line) if uri else line - 1
                return None if current is None else current + 1

            return api.line_annotations(engine, params, line_map)
        return handler(engine, params)
    except api.ApiError as error:
        raise JsonRpcException(error.message, code=error.code, data=error.data) from None


def _register(server: PerflineServer) -> None:
    @server.feature(t.INITIALIZE)
    def initialize(ls: PerflineServer, params: t.InitializeParams) -> None:
        root: Path | None = None
        folders = params.workspace_folders or []
        uri = folders[0].uri if folders else params.root_uri
        if uri:
            fs = to_fs_path(uri)
            root = Path(fs) if fs else None
        elif params.root_path:
            root = Path(params.root_path)
        engine = ls.host.engine(root)
        ls.attach(engine)
        ls.apply_settings(params.initialization_options)

    @server.feature(t.INITIALIZED)
    async def initialized(ls: PerflineServer, params: t.InitializedParams) -> None:
        ls.initialized = True
        watched = (
            ls.client_capabilities.workspace.did_change_watched_files
            if (ls.client_capabilities.workspace)
            else None
        )
        if watched is not None and watched.dynamic_registration and ls.host.use_client_events():
            try:
                await ls.client_register_capability_async(
                    t.RegistrationParams(
                        [
                            t.Registration(
                                id="perfline-watch",
                                method=t.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                register_options=t.DidChangeWatchedFilesRegistrationOptions(
                                    [t.FileSystemWatcher(glob_pattern=g) for g in WATCH_GLOBS]
                                ),
                            )
                        ]
                    )
                )
            except Exception:
                log.exception("client refused the file-watcher registration; using watchdog")
                ls.host.client_events = False
                ls.host.start_watchdog()
        else:
            ls.host.start_watchdog()
        ls.publish_all_diagnostics()
        if ls.can_pull_configuration():
            pulled = await ls.pull_settings()
            if pulled is not None and ls.apply_settings(pulled):
                ls.refresh()

    @server.feature(t.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: PerflineServer, params: t.DidChangeConfigurationParams
    ) -> None:
        """Re-read the hint settings (pulled when the client supports it, else the pushed
        ones), then have the client re-request hints and lenses."""
        section = await ls.pull_settings() if ls.can_pull_configuration() else None
        if section is None:
            section = params.settings
        if ls.apply_settings(section):
            ls.refresh()

    @server.feature(t.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: PerflineServer, params: t.DidChangeWatchedFilesParams) -> None:
        if not ls.host.client_events:
            return  # watchdog already reports these: never both
        paths = [p for p in (to_fs_path(c.uri) for c in params.changes) if p]
        # Editors report a file once it has been written (and batch their events).
        ls.engine().notify_changed(paths, finished=True)

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PerflineServer, params: t.DidOpenTextDocumentParams) -> None:
        ls.trackers[params.text_document.uri] = LineTracker(params.text_document.text)
        ls.publish_all_diagnostics()

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PerflineServer, params: t.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        tracker = ls.trackers.get(uri)
        doc = ls._document(uri)
        if tracker is None or doc is None:
            return
        for change in params.content_changes:
            if isinstance(change, t.TextDocumentContentChangePartial):
                rng = change.range
                tracker.apply_range(
                    (rng.start.line, rng.start.character),
                    (rng.end.line, rng.end.character),
                    change.text,
                    doc.source,
                )
            else:
                tracker.apply_full(doc.source)
        ls.publish_all_diagnostics()
        ls.refresh()

    @server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PerflineServer, params: t.DidCloseTextDocumentParams) -> None:
        ls.trackers.pop(params.text_document.uri, None)

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PerflineServer, params: t.DidSaveTextDocumentParams) -> None:
        return None

    @server.feature(t.TEXT_DOCUMENT_INLAY_HINT, t.InlayHintOptions(resolve_provider=False))
    def inlay_hints(ls: PerflineServer, params: t.InlayHintParams) -> EncodedArray:
        """The hints of the requested range, as ``InlayHint`` JSON texts encoded ahead."""
        uri = params.text_document.uri
        doc = ls._document(uri)
        if doc is None:
            return EncodedArray([])
        lines, encoded = ls.encoded_hints(uri, doc)
        first = bisect.bisect_left(lines, params.range.start.line)
        last = bisect.bisect_right(lines, params.range.end.line)
        return EncodedArray(encoded[first:last])

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    def hover(ls: PerflineServer, params: t.HoverParams) -> t.Hover | None:
        uri = params.text_document.uri
        entries = ls.entries_by_current_line(uri).get(params.position.line)
        if not entries:
            return None
        doc = ls._document(uri)
        end = 0
        if doc is not None and params.position.line < len(doc.lines):
            end = _columns(doc, doc.lines[params.position.line].rstrip("\r\n"))
        return t.Hover(
            contents=t.MarkupContent(
                kind=t.MarkupKind.Markdown,
                value=hover_markdown(entries, stale=ls.is_stale(uri, entries)),
            ),
            range=t.Range(
                t.Position(params.position.line, 0), t.Position(params.position.line, end)
            ),
        )

    @server.feature(t.TEXT_DOCUMENT_CODE_LENS, t.CodeLensOptions(resolve_provider=False))
    def code_lens(ls: PerflineServer, params: t.CodeLensParams) -> list[t.CodeLens]:
        uri = params.text_document.uri
        doc = ls._document(uri)
        if doc is None or not uri.endswith(".py"):
            return []
        by_line = ls.entries_by_current_line(uri)

        def value_at(line: int) -> Any:
            entries = by_line.get(line - 1)
            if not entries:
                return None
            found = lens_figure(entries, ls.hint_settings, ls.total_of)
            return UNFIGURED if found is None else found

        stale = ls.trackers.get(uri) is not None and ls.trackers[uri].edited
        lenses = []
        for block in code_blocks(doc.source, value_at):
            title = block.title + (STALE_MARK if stale else "")
            lenses.append(
                t.CodeLens(
                    range=t.Range(t.Position(block.line - 1, 0), t.Position(block.line - 1, 0)),
                    command=t.Command(
                        title=title, command="perfline.showBlock", arguments=[uri, block.line]
                    ),
                )
            )
        return lenses

    @server.command("perfline.showBlock")
    def show_block(ls: PerflineServer, *args: Any) -> None:
        return None

    @server.command("perfline.reanalyze")
    def reanalyze_command(ls: PerflineServer, *args: Any) -> dict[str, Any]:
        job = args[0] if args and isinstance(args[0], str) else None
        result: dict[str, Any] = _api_call(ls, "perfline/reanalyze", {"job": job} if job else {})
        return result

    for method in api.METHODS:

        def make(name: str) -> Callable[[PerflineServer, Any], Any]:
            def handler(ls: PerflineServer, params: Any) -> Any:
                return _api_call(ls, name, params)

            return handler

        server.feature(method)(make(method))
