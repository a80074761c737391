"""``textDocument/publishDiagnostics``: the view's diagnostics of every file, and empty
lists for the files that had some and have none now."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from perfline.server.lsp import convert

if TYPE_CHECKING:
    from perfline.server.lsp.connection import PerflineServer


def publish(ls: PerflineServer) -> None:
    update = ls.view.diagnostics()
    for path in update.cleared:
        _send(ls, path, [])
    for path, items in update.files.items():
        uri = convert.uri_of(path)
        doc = ls.document(uri) if uri is not None and ls.view.is_open(path) else None
        _send(ls, path, [convert.diagnostic(doc, item) for item in items])


def _send(ls: PerflineServer, path: str, items: list[types.Diagnostic]) -> None:
    uri = convert.uri_of(path)
    if uri is not None:
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items)
        )
