"""Conversions between LSP values and the view's (``server.view.shapes``).

URIs <-> file-system paths (memoized: pure, and asked on every request); 0-based LSP
lines <-> the view's 1-based lines; the view's code-point columns -> the negotiated
position encoding's code units (UTF-8, UTF-16 or UTF-32) of the client's copy of the
line; view diagnostics -> ``lsprotocol`` ones.
Constant time per value, linear in a line's length for non-ASCII lines.
"""

from __future__ import annotations

import functools
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from perfline.server.view.shapes import Diagnostic, Severity

_SEVERITY: dict[Severity, types.DiagnosticSeverity] = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
}


@functools.lru_cache(maxsize=4096)
def path_of(uri: str) -> str | None:
    """The file-system path of a ``file:`` URI (``None`` for other schemes)."""
    path = to_fs_path(uri)
    return path if isinstance(path, str) else None


@functools.lru_cache(maxsize=4096)
def uri_of(path: str) -> str | None:
    uri = from_fs_path(path)
    return uri if isinstance(uri, str) else None


def view_line(lsp_line: int) -> int:
    return lsp_line + 1


def lsp_line(line: int) -> int:
    return line - 1


def units(doc: Any, text: str) -> int:
    """Length of ``text`` in the code units of the document's negotiated encoding."""
    if text.isascii():
        return len(text)
    raw = doc.position_codec.encoding
    encoding = str(getattr(raw, "value", raw))
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def column(doc: Any, line: int, code_points: int) -> int:
    """The client's column of a view column on a 1-based line; beyond the line's text
    (or without the document) code points count as one unit each."""
    lines = doc.lines if doc is not None else ()
    if not 0 < line <= len(lines):
        return code_points
    text = lines[line - 1].rstrip("\r\n")
    if code_points <= len(text):
        return units(doc, text[:code_points])
    return units(doc, text) + code_points - len(text)


def line_range(doc: Any, line: int, start: int, end: int) -> types.Range:
    """An LSP range on one 1-based view line, from and to view columns."""
    lsp = lsp_line(line)
    begin, finish = column(doc, line, start), column(doc, line, end)
    return types.Range(types.Position(lsp, begin), types.Position(lsp, finish))


def diagnostic(doc: Any, item: Diagnostic) -> types.Diagnostic:
    return types.Diagnostic(
        range=line_range(doc, item.line, item.column, item.end_column),
        message=item.message,
        severity=_SEVERITY[item.severity],
        source=item.source,
        code=item.code,
    )
