"""``textDocument/inlayHint``: the view's hints of the range, pre-encoded (``wire``).

A hint sits at the end of its line, in the negotiated encoding's units; its label is the
line's figure (``1.8k cycles · 13%``), stale ones end with `` (stale)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from perfline.server.lsp import convert
from perfline.server.lsp.features import Feature
from perfline.server.lsp.wire import EncodedArray

if TYPE_CHECKING:
    from perfline.server.lsp.connection import PerflineServer


def inlay_hints(ls: PerflineServer, params: types.InlayHintParams) -> EncodedArray:
    uri = params.text_document.uri
    path, doc = ls.client_path(uri), ls.document(uri)
    if path is None or doc is None:
        return EncodedArray([])
    first, last = (
        convert.view_line(params.range.start.line),
        convert.view_line(params.range.end.line),
    )
    page = ls.view.hints(path, first, last)
    encoded = ls.hint_wire.encode(
        uri, page.rows, doc, lambda hint: convert.column(doc, hint.line, hint.column)
    )
    return EncodedArray(encoded[page.start : page.stop])


FEATURES = (
    Feature(
        types.TEXT_DOCUMENT_INLAY_HINT, inlay_hints, types.InlayHintOptions(resolve_provider=False)
    ),
)
