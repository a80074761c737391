"""End-to-end: the client's hint settings (metric, format, share threshold) from
``initializationOptions``, ``workspace/configuration`` pulls and pushed
``workspace/didChangeConfiguration`` change the hints and lenses the daemon serves."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from lsprotocol import types

from tests.support.lsp_session import Session, start, until
from tests.support.three_chain_document import three_chain_document

pytestmark = pytest.mark.timeout(90)


DEFAULT_LABELS = ["600 cycles · 60%", "300 cycles · 30%", "100 cycles · 10%"]
MAC_LABELS = ["mac_count=10 count (10%)", "mac_count=30 count (30%)", "mac_count=60 count (60%)"]
MAC_SETTINGS = {"hints": {"metric": "mac_count", "format": "{metric}={value} ({share})"}}


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "model.py").write_text(
        "class Net(nn.Module):\n    def forward(self, x):\n        return conv(x)\n"
    )
    (root / "perfline.toml").write_text('[[path_map]]\nfrom = "/home/dev/proj/"\nto = "."\n')
    (root / "run.mlia.json").write_text(json.dumps(three_chain_document()))
    return root


async def _labels(session: Session) -> list[str]:
    hints = await session.hints(session.uri("model.py"), 10)
    return [str(h.label) for h in hints]


async def _lens_titles(session: Session) -> list[str]:
    lenses = await session.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(session.uri("model.py")))
    )
    return [lens.command.title for lens in lenses or [] if lens.command is not None]


async def test_pulled_settings_apply_at_start_and_on_change(tmp_path: Path) -> None:
    async with start(
        _workspace(tmp_path),
        "stdio",
        "visual-studio-code",
        configuration={"perfline": MAC_SETTINGS},
    ) as session:
        await session.wait_analysed()
        session.open("model.py")

        async def mac_labels() -> bool:
            return await _labels(session) == MAC_LABELS

        await until(mac_labels)  # pulled after `initialized`
        lenses = await _lens_titles(session)
        assert lenses and all("90 count total · 90% of the model" in title for title in lenses), (
            lenses
        )

        # A change: the server pulls the new section (ignoring the pushed payload) and
        # asks the client to refresh.
        session.client.set_configuration({"hints": {"minShare": 20}}, section="perfline")
        refreshes = len(session.refreshes)
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings=None)
        )

        async def threshold_applied() -> bool:
            return await _labels(session) == DEFAULT_LABELS[:2]

        await until(threshold_applied)
        # (these client capabilities declare lens refreshes only)
        assert session.refreshes[refreshes:] == ["codeLens"]
        lenses = await _lens_titles(session)
        assert lenses and all("400 cycles total · 40% of the model" in title for title in lenses), (
            lenses
        )


async def test_pushed_settings_when_the_client_cannot_be_asked(tmp_path: Path) -> None:
    async with start(
        _workspace(tmp_path),
        "stdio",
        "neovim@v0.11",
        initialization_options={"settings": {"perfline": MAC_SETTINGS}},
        without_configuration_pull=True,
    ) as session:
        await session.wait_analysed()
        session.open("model.py")
        assert await _labels(session) == MAC_LABELS  # from initializationOptions

        refreshes = len(session.refreshes)
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"perfline": {"hints": {"metric": "auto", "format": "{value}"}}}
            )
        )

        async def values_only() -> bool:
            return await _labels(session) == ["600 cycles", "300 cycles", "100 cycles"]

        await until(values_only)
        assert "inlayHint" in session.refreshes[refreshes:]

        # Invalid values fall back to the defaults (and are reported, not fatal).
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"perfline": {"hints": {"format": "{nope}", "minShare": "x"}}}
            )
        )

        async def defaults() -> bool:
            return await _labels(session) == DEFAULT_LABELS

        await until(defaults)
        status = await session.request("perfline/status", {})
        assert status.jobs == 1


async def test_workspace_files_cannot_set_client_settings(tmp_path: Path) -> None:
    """Hint settings come from the client only: a workspace file named like a settings
    file changes nothing (and there is no program path among the settings at all)."""
    root = _workspace(tmp_path)
    (root / ".vscode").mkdir()
    (root / ".vscode" / "settings.json").write_text(json.dumps({"perfline.hints.metric": "x"}))
    async with start(root, "stdio", "neovim@v0.11", without_configuration_pull=True) as session:
        await session.wait_analysed()
        session.open("model.py")
        assert await _labels(session) == DEFAULT_LABELS


async def test_pushed_settings_apply_when_the_pulled_section_is_empty(tmp_path: Path) -> None:
    """Issue 21's ignored ``workspace/didChangeConfiguration``: a client that supports pulls
    but whose settings store holds nothing for perfline answers the pull with an empty
    section. The daemon let that answer win: a change dropped the settings the client
    pushed, and any change reset those of ``initializationOptions`` to the defaults."""
    async with start(
        _workspace(tmp_path),
        "stdio",
        "visual-studio-code",
        initialization_options={"settings": {"perfline": MAC_SETTINGS}},
        configuration={"perfline": {}},
    ) as session:
        await session.wait_analysed()
        session.open("model.py")

        async def mac_labels() -> bool:
            return await _labels(session) == MAC_LABELS

        await until(mac_labels)  # from initializationOptions

        # A change that names no perfline section (the pull answers {}): nothing changes.
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"python": {"x": 1}})
        )
        await asyncio.sleep(1.0)
        assert await _labels(session) == MAC_LABELS

        refreshes = len(session.refreshes)
        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(
                settings={"perfline": {"hints": {"format": "{value}"}}}
            )
        )

        async def values_only() -> bool:
            return await _labels(session) == ["600 cycles", "300 cycles", "100 cycles"]

        await until(values_only)
        assert session.refreshes[refreshes:] == ["codeLens"]
