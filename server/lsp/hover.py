"""``textDocument/hover``: the view's Markdown for the line under the cursor."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from perfline.server.lsp import convert
from perfline.server.lsp.features import Feature

if TYPE_CHECKING:
    from perfline.server.lsp.connection import PerflineServer


def hover(ls: PerflineServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    path = ls.client_path(uri)
    found = ls.view.hover(path, convert.view_line(params.position.line)) if path else None
    if found is None:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=found.markdown),
        range=convert.line_range(ls.document(uri), found.line, 0, found.end_column),
    )


FEATURES = (Feature(types.TEXT_DOCUMENT_HOVER, hover),)
