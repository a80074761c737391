"""Issue 17 item 2, the daemon part: a broken ``perfline.toml`` keeps its diagnostic on the
offending line and the last valid configuration in force, and each connection is also shown
a ``window/showMessage`` (Error) once per distinct configuration error text."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from tests.support.lsp_session import Session, start, until
from tests.support.server_helpers import KWS_FIGURE_LINES, copy_kws

pytestmark = pytest.mark.timeout(120)


def _write(session: Session, text: str) -> None:
    config = session.root / "perfline.toml"
    config.write_text(text)
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [types.FileEvent(config.as_uri(), types.FileChangeType.Changed)]
        )
    )


def _errors(session: Session) -> list[str]:
    return [m.message for m in session.client.messages if m.type == types.MessageType.Error]


def _config_diagnostics(session: Session) -> list[types.Diagnostic]:
    return list(session.client.diagnostics.get((session.root / "perfline.toml").as_uri(), []))


async def test_each_distinct_config_error_is_shown_once(tmp_path: Path) -> None:
    async with start(copy_kws(tmp_path), "stdio", "visual-studio-code") as session:
        await session.wait_analysed()
        good = (session.root / "perfline.toml").read_text()
        assert _errors(session) == []
        misspelled = good.replace('backend = "executorch"', 'backend = "exectorch"')
        _write(session, misspelled)
        await until(lambda: len(_errors(session)) == 1)
        (message,) = _errors(session)
        assert message.startswith("perfline: perfline.toml: line 11, column 11 (jobs[0].backend): ")
        assert "unknown backend 'exectorch'" in message
        assert "the last valid configuration stays in force" in message
        # the diagnostic on its line stays, and the last valid configuration serves on
        await until(lambda: len(_config_diagnostics(session)) == 1)
        assert _config_diagnostics(session)[0].range.start.line == 10
        uri = session.open("dscnn.py")
        assert [h.position.line + 1 for h in await session.hints(uri)] == KWS_FIGURE_LINES
        # The same error again (the file fixed, then broken the same way): not shown again.
        _write(session, good)
        await until(lambda: not _config_diagnostics(session))
        _write(session, misspelled)
        await until(lambda: len(_config_diagnostics(session)) == 1)
        # (the daemon sends a message before the diagnostics of the same change)
        assert len(_errors(session)) == 1
        # A different error: shown.
        _write(session, good.replace("[[jobs]]", "[[job]]"))
        await until(lambda: len(_errors(session)) == 2)
        assert "unknown table 'job'" in _errors(session)[1]


async def test_an_error_present_at_start_is_shown(tmp_path: Path) -> None:
    root = copy_kws(tmp_path)
    config = root / "perfline.toml"
    config.write_text(config.read_text().replace("inputs", "input"))
    async with start(root, "stdio", "neovim@v0.11") as session:
        await until(lambda: len(_errors(session)) == 1)
        assert "unknown key 'input'" in _errors(session)[0]
