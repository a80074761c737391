"""End-to-end: the daemon as a subprocess over stdio and TCP, driven by pytest-lsp's client,
on a copy of the example workspace (the real DS-CNN ETRecord/ETDump pair)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.support.lsp_session import Session, start, until
from tests.support.server_helpers import KWS_FIGURE_LINES, copy_kws

pytestmark = pytest.mark.timeout(90)

#: A non-ASCII comment on an annotated line, so UTF-8 and UTF-16 columns differ.
COMMENT = "  # → 1×1 conv 🙂"
LABEL = re.compile(r"^\d+(\.\d+)? ms avg · (<1|\d+)%( \(stale\))?$")

SETUPS = {
    "stdio-neovim": ("stdio", "neovim@v0.11"),
    "stdio-vscode": ("stdio", "visual-studio-code"),
    "tcp-neovim": ("tcp", "neovim@v0.11"),
}


def _workspace(tmp_path: Path) -> Path:
    root = copy_kws(tmp_path)
    source = root / "dscnn.py"
    lines = source.read_text().split("\n")
    lines[25] += COMMENT
    source.write_text("\n".join(lines))
    return root


@pytest.fixture(params=sorted(SETUPS))
async def session(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Session]:
    transport, caps = SETUPS[request.param]
    async with start(_workspace(tmp_path), transport, caps) as active:
        await active.wait_analysed()
        yield active


@pytest.fixture
async def nvim_session(tmp_path: Path) -> AsyncIterator[Session]:
    async with start(_workspace(tmp_path), "stdio", "neovim@v0.11") as active:
        await active.wait_analysed()
        yield active


def _units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


async def test_editor_features(session: Session) -> None:
    """One daemon per transport/client: hints, hover, lenses, the API, watch source."""
    await _inlay_hints_on_the_measured_lines(session)
    await _hover_table(session)
    await _code_lenses(session)
    await _custom_requests_and_errors(session)
    _watched_files_come_from_one_source_only(session)


async def test_change_cycle(session: Session) -> None:
    """Config error -> diagnostic -> fixed; broken capture -> stale -> restored -> refresh."""
    await _config_error_diagnostic_and_recovery(session)
    await _refresh_after_a_file_change(session)


async def _inlay_hints_on_the_measured_lines(session: Session) -> None:
    uri = session.open("dscnn.py")
    hints = await session.hints(uri)
    assert [h.position.line + 1 for h in hints] == KWS_FIGURE_LINES
    for hint in hints:
        assert isinstance(hint.label, str) and LABEL.match(hint.label), hint.label
    # The hint sits at the end of its line, in the negotiated encoding's units.
    text = (session.root / "dscnn.py").read_text().split("\n")
    by_line = {h.position.line: h for h in hints}
    assert by_line[25].position.character == _units(text[25], session.encoding)
    assert by_line[23].position.character == len(text[23])
    assert session.encoding == ("utf-8" if session.caps.startswith("neovim") else "utf-16")
    # The pointwise conv dominates the measured time.
    assert by_line[25].label.startswith("9.") and " · 8" in by_line[25].label


async def _hover_table(session: Session) -> None:
    uri = session.uri("dscnn.py")
    hover = await session.client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(23, 4))
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    value = hover.contents.value
    # Every statistic the line holds (a sum of four operators: their average), unit once.
    assert "| measure | avg |" in value and "| duration (ms) | 0.95 |" in value
    # The operators under the line, most costly first, then what ran.
    assert "| type | operator | avg (ms) | share of line |" in value
    rows = re.findall(r"^\| aten\.conv2d \| (conv2d_\d) \| ([\d.]+) \| (\d+)% \|$", value, re.M)
    assert sorted(r[0] for r in rows) == ["conv2d_1", "conv2d_3", "conv2d_5", "conv2d_7"]
    assert [float(r[1]) for r in rows] == sorted((float(r[1]) for r in rows), reverse=True)
    assert "ExecuTorch CPU kernels (no delegate), measured, 10 runs" in value
    assert "neural-technology" not in value
    none = await session.client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(6, 0))
    )
    assert none is None


async def _code_lenses(session: Session) -> None:
    uri = session.uri("dscnn.py")
    lenses = await session.client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    titles = {
        (lens.range.start.line + 1): lens.command.title for lens in lenses or [] if lens.command
    }
    assert sorted(titles) == [12, 23, 31, 39]
    assert titles[12].startswith("nn.Module DSBlock: ") and "of the model" in titles[12]
    assert titles[23].startswith("DSBlock.forward: ") and " total · " in titles[23]
    assert titles[31].startswith("nn.Module DSCNN: ")
    print("LENS39", repr(titles[39]), "LENS23", repr(titles[23]))


async def _custom_requests_and_errors(session: Session) -> None:
    status = await session.request("perfline/status", {})
    assert status.apiVersion == "1.2" and status.jobs == 1 and status.errors == 0
    result = await session.request("perfline/result", {"job": "dscnn-measured"})
    assert result.document.results[0].mode == "measured"
    annotations = await session.request(
        "perfline/lineAnnotations", {"file": str(session.root / "dscnn.py")}
    )
    lines = [item.line for item in annotations.lines if item.label]
    assert lines == KWS_FIGURE_LINES
    entity_id = annotations.lines[0].entities[0].entityId
    entity = await session.request(
        "perfline/entity", {"job": "dscnn-measured", "entityId": entity_id}
    )
    assert entity.entity.kind == "code_line"
    assert entity.breakdowns and entity.children
    scheduled = await session.request("perfline/reanalyze", {"job": "dscnn-measured"})
    assert scheduled.scheduled == ["dscnn-measured"]
    errors = [
        ("perfline/result", {"job": "nope"}, -32001, "unknown job 'nope'"),
        ("perfline/lineAnnotations", {"file": "/etc/passwd"}, -32002, "outside the workspace"),
        ("perfline/lineAnnotations", {"file": 3}, -32602, "must be a non-empty string"),
        ("perfline/entity", {"job": "dscnn-measured"}, -32602, "missing parameter 'entityId'"),
        ("perfline/entity", {"job": "dscnn-measured", "entityId": "x"}, -32003, "no entity 'x'"),
        ("perfline/jobs", [1, 2], -32602, "params must be a JSON object"),
    ]
    for method, params, code, text in errors:
        with pytest.raises(JsonRpcException) as caught:
            await session.request(method, params)
        assert caught.value.code == code, (method, caught.value)
        assert text in caught.value.message


async def _config_error_diagnostic_and_recovery(session: Session) -> None:
    config = session.root / "perfline.toml"
    good = config.read_text()
    config.write_text(good.replace('backend = "executorch"', 'backend = "exectorch"'))
    line = good.split("\n").index('backend = "executorch"')
    config_uri = config.as_uri()
    _notify(session, config_uri)
    await until(lambda: bool(session.client.diagnostics.get(config_uri)))
    (diagnostic,) = session.client.diagnostics[config_uri]
    assert diagnostic.range.start.line == line
    assert "unknown backend 'exectorch'" in diagnostic.message
    config.write_text(good)
    _notify(session, config_uri)
    await until(lambda: _cleared(session, config_uri))


def _cleared(session: Session, uri: str) -> bool:
    return uri in session.client.diagnostics and len(session.client.diagnostics[uri]) == 0


def _notify(session: Session, uri: str) -> None:
    """Report a change the way the client would, if it watches files for the server."""
    if session.registrations:
        session.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams([types.FileEvent(uri, types.FileChangeType.Changed)])
        )


async def _refresh_after_a_file_change(session: Session) -> None:
    uri = session.open("dscnn.py")
    etdump = session.root / "dscnn_portable.etdump"
    content = etdump.read_bytes()
    refreshes = len(session.refreshes)
    changes = len(session.changes)
    etdump.write_bytes(content[: len(content) // 3])  # a broken capture
    _notify(session, etdump.as_uri())
    await until(lambda: any(c.get("error") for c in session.changes[changes:]))
    hints = await session.hints(uri)
    assert hints and all(str(h.label).endswith("(stale)") for h in hints)
    # Lenses read the same staleness rule: over a failing job they are stale too (issue 21:
    # they used to look at the edits only).
    titles = await _lens_titles(session, uri)
    assert titles and all(title.endswith(" (stale)") for title in titles), titles
    await until(lambda: bool(session.client.diagnostics.get(etdump.as_uri())))
    assert "job dscnn-measured" in session.client.diagnostics[etdump.as_uri()][0].message
    etdump.write_bytes(content)
    _notify(session, etdump.as_uri())
    await until(
        lambda: any(
            c.get("kind") == "result" and not c.get("error") for c in session.changes[changes:]
        )
    )
    hints = await session.hints(uri)
    assert [h.position.line + 1 for h in hints] == KWS_FIGURE_LINES
    assert not any(str(h.label).endswith("(stale)") for h in hints)
    assert not any(title.endswith("(stale)") for title in await _lens_titles(session, uri))
    caps = session.client.capabilities
    assert caps is not None and caps.workspace is not None
    if caps.workspace.inlay_hint and caps.workspace.inlay_hint.refresh_support:
        await until(lambda: "inlayHint" in session.refreshes[refreshes:])
    if caps.workspace.code_lens and caps.workspace.code_lens.refresh_support:
        await until(lambda: "codeLens" in session.refreshes[refreshes:])
    await until(lambda: _cleared(session, etdump.as_uri()))


async def _lens_titles(session: Session, uri: str) -> list[str]:
    lenses = await session.client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    return [lens.command.title for lens in lenses or [] if lens.command]


def _watched_files_come_from_one_source_only(session: Session) -> None:
    caps = session.client.capabilities
    assert caps is not None and caps.workspace is not None
    dynamic = bool(
        caps.workspace.did_change_watched_files
        and caps.workspace.did_change_watched_files.dynamic_registration
    )
    # stdio + a client that can watch: the client watches; otherwise watchdog does.
    assert bool(session.registrations) == (dynamic and session.transport == "stdio")


async def test_progress_and_edits(nvim_session: Session) -> None:
    await _progress_for_a_run(nvim_session)
    await _edits_move_annotations_and_mark_them_stale(nvim_session)


async def _progress_for_a_run(nvim_session: Session) -> None:
    await nvim_session.request("perfline/reanalyze", {})
    await until(
        lambda: any(
            any(isinstance(v, types.WorkDoneProgressEnd) for v in values)
            for values in nvim_session.client.progress_reports.values()
        )
    )
    for values in nvim_session.client.progress_reports.values():
        assert [type(v) for v in values] == [types.WorkDoneProgressBegin, types.WorkDoneProgressEnd]
        assert isinstance(values[0], types.WorkDoneProgressBegin)
    assert "dscnn-measured" in values[0].title


async def _edits_move_annotations_and_mark_them_stale(nvim_session: Session) -> None:
    uri = nvim_session.open("dscnn.py")
    nvim_session.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(version=2, uri=uri),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(0, 0), types.Position(0, 0)),
                    text="# one\n# two\n",
                )
            ],
        )
    )
    hints = await nvim_session.hints(uri)
    assert [h.position.line + 1 for h in hints] == [n + 2 for n in KWS_FIGURE_LINES]
    assert all(str(h.label).endswith("(stale)") for h in hints)
    # Deleting an annotated line drops its hint.
    nvim_session.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(version=3, uri=uri),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(25, 0), types.Position(26, 0)), text=""
                )
            ],
        )
    )
    hints = await nvim_session.hints(uri)
    assert [h.position.line + 1 for h in hints] == [26, 27, 28, 41, 42, 43, 45]
