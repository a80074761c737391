"""``textDocument/codeLens``: one lens per function and ``nn.Module`` with figures.

A lens runs ``perfline.showBlock`` with the document's URI and its block's first and last
line (1-based, inclusive, as the server's ``ast`` found them): the client shows the
breakdown of exactly those lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from perfline.server.lsp import convert
from perfline.server.lsp.features import Feature

if TYPE_CHECKING:
    from perfline.server.lsp.connection import PerflineServer


def code_lens(ls: PerflineServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    uri = params.text_document.uri
    path = ls.client_path(uri)
    lenses = ls.view.lenses(path) if path is not None else ()
    return [
        types.CodeLens(
            range=convert.line_range(None, lens.line, 0, 0),
            command=types.Command(
                title=lens.title,
                command=lens.command,
                arguments=[uri, lens.line, lens.end_line],
            ),
        )
        for lens in lenses
    ]


FEATURES = (
    Feature(
        types.TEXT_DOCUMENT_CODE_LENS, code_lens, types.CodeLensOptions(resolve_provider=False)
    ),
)
