"""Document sync: ``didOpen``, ``didChange``, ``didClose``, ``didSave``.

The view tracks each open document's lines since the analysis (figures follow unsaved
edits and are marked stale); pygls keeps the text itself. A change re-publishes the
diagnostics (their lines moved) and asks the client to refresh hints and lenses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from perfline.server.lsp import convert
from perfline.server.lsp.features import Feature

if TYPE_CHECKING:
    from perfline.server.lsp.connection import PerflineServer


def did_open(ls: PerflineServer, params: types.DidOpenTextDocumentParams) -> None:
    path = ls.client_path(params.text_document.uri, refuse=False)
    if path is not None:
        ls.view.open(path, params.text_document.text)
    ls.publish_diagnostics()


def did_change(ls: PerflineServer, params: types.DidChangeTextDocumentParams) -> None:
    path = ls.client_path(params.text_document.uri, refuse=False)
    doc = ls.document(params.text_document.uri)
    if path is None or doc is None or not ls.view.is_open(path):
        return
    for change in params.content_changes:
        if isinstance(change, types.TextDocumentContentChangePartial):
            start, end = change.range.start, change.range.end
            first = (convert.view_line(start.line), start.character)
            last = (convert.view_line(end.line), end.character)
            ls.view.edit(path, first, last, change.text, doc.source)
        else:
            ls.view.replace(path, doc.source)
    ls.publish_diagnostics()
    ls.refresh()


def did_close(ls: PerflineServer, params: types.DidCloseTextDocumentParams) -> None:
    path = ls.client_path(params.text_document.uri, refuse=False)
    if path is not None:
        ls.view.close(path)
    ls.hint_wire.forget(params.text_document.uri)


def did_save(ls: PerflineServer, params: types.DidSaveTextDocumentParams) -> None:
    return None


FEATURES = (
    Feature(types.TEXT_DOCUMENT_DID_OPEN, did_open),
    Feature(types.TEXT_DOCUMENT_DID_CHANGE, did_change),
    Feature(types.TEXT_DOCUMENT_DID_CLOSE, did_close),
    Feature(types.TEXT_DOCUMENT_DID_SAVE, did_save),
)
