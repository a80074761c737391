"""The daemon (pytest-lsp, stdio) serving an ONNX Runtime job and a static job of one file."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.support.lsp_session import start
from tests.support.ort_static_workspace import ort_static_workspace


async def test_hover_and_hints_show_both_jobs_side_by_side(tmp_path: Path) -> None:
    root = ort_static_workspace(tmp_path)
    async with start(root, "stdio", "visual-studio-code") as session:
        jobs = await session.wait_analysed()
        assert sorted((j.name, j.state) for j in jobs) == [
            ("dscnn.onnx.static", "ok"),
            ("dscnn_noopt", "ok"),
        ]
        uri = session.open("dscnn.py")
        hover = await session.client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(26, 8))  # line 27
        )
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        value = hover.contents.value
        assert "ONNX Runtime profiler, measured · job `dscnn_noopt`" in value
        assert "perfline static cost, predicted · job `dscnn.onnx.static`" in value
        # line 27: four 1x1 convolutions of 64 -> 64 channels on 25x5, 64*64*125 MACs each
        assert "| macs | 2.0M MAC |" in value and "| Conv | node_Conv_141 | 512k | 25% |" in value
        assert "| duration (ms) |" in value
        (hint,) = [h for h in await session.hints(uri) if h.position.line == 26]
        assert isinstance(hint.label, str) and " MAC · " in hint.label and "ms avg" in hint.label
        assert "(dscnn.onnx.static)" in str(hint.tooltip) and "(dscnn_noopt)" in str(hint.tooltip)
