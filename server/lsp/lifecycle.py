"""``initialize`` and ``initialized``: the workspace root, file watching, first settings.

The root is the first workspace folder (else ``rootUri``, ``rootPath``, the current
directory); the engine is created for it on first use. File events come from the client
(``workspace/didChangeWatchedFiles``, registered dynamically when the client can and the
host allows it: stdio only) or from watchdog, never both. Settings come from
``initializationOptions``, then from a ``workspace/configuration`` pull.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from perfline.server.lsp import configuration, convert, messages
from perfline.server.lsp.features import Feature

if TYPE_CHECKING:
    from perfline.server.lsp.connection import PerflineServer

log = logging.getLogger(__name__)

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


def initialize(ls: PerflineServer, params: types.InitializeParams) -> None:
    ls.attach(ls.host.engine(_root(params)))
    ls.log_problems(ls.view.apply_settings(params.initialization_options).problems)


async def initialized(ls: PerflineServer, params: types.InitializedParams) -> None:
    ls.initialized = True
    await _watch_files(ls)
    ls.publish_diagnostics()
    messages.show_config_error(ls)
    change = ls.view.apply_settings(await configuration.pull(ls))
    ls.log_problems(change.problems)
    if change.changed:
        ls.refresh()
        ls.publish_diagnostics()


def _root(params: types.InitializeParams) -> Path | None:
    folders = params.workspace_folders or []
    uri = folders[0].uri if folders else params.root_uri
    if uri:
        path = convert.path_of(uri)
        return Path(path) if path else None
    return Path(params.root_path) if params.root_path else None


async def _watch_files(ls: PerflineServer) -> None:
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    if watched is None or not watched.dynamic_registration or not ls.host.use_client_events():
        ls.host.start_watchdog()
        return
    watchers = [types.FileSystemWatcher(glob_pattern=glob) for glob in WATCH_GLOBS]
    registration = types.Registration(
        id="perfline-watch",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers),
    )
    try:
        await ls.client_register_capability_async(types.RegistrationParams([registration]))
    except Exception:
        log.exception("client refused the file-watcher registration; using watchdog")
        ls.host.client_events = False
        ls.host.start_watchdog()


def did_change_watched_files(ls: PerflineServer, params: types.DidChangeWatchedFilesParams) -> None:
    if not ls.host.client_events:
        return  # watchdog already reports these: never both
    paths = [p for p in (convert.path_of(c.uri) for c in params.changes) if p]
    # Editors report a file once it has been written (and batch their events).
    ls.engine().notify_changed(paths, finished=True)


FEATURES = (
    Feature(types.INITIALIZE, initialize),
    Feature(types.INITIALIZED, initialized),
    Feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES, did_change_watched_files),
)
