"""Starting the daemon for end-to-end tests: stdio (as editors do) or a shared TCP daemon;
``until``: waiting for what the editor side receives."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from perfline.server.discovery import token_for

ANALYSIS_TIMEOUT = 30.0


@dataclass
class Session:
    client: LanguageClient
    root: Path
    transport: str
    caps: str
    refreshes: list[str] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)
    registrations: list[types.RegistrationParams] = field(default_factory=list)
    encoding: str = "utf-16"

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    async def request(self, method: str, params: Any = None) -> Any:
        return await self.client.protocol.send_request_async(method, params)

    async def wait_analysed(self) -> list[Any]:
        deadline = asyncio.get_running_loop().time() + ANALYSIS_TIMEOUT
        while True:
            jobs = (await self.request("perfline/jobs", {})).jobs
            if jobs and all(j.state in ("ok", "error") for j in jobs):
                return list(jobs)
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"jobs not analysed: {jobs}")
            await asyncio.sleep(0.05)

    def open(self, name: str) -> str:
        uri = self.uri(name)
        text = (self.root / name).read_text(encoding="utf-8")
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text))
        )
        return uri

    async def hints(self, uri: str, last_line: int = 200) -> list[types.InlayHint]:
        result = await self.client.text_document_inlay_hint_async(
            types.InlayHintParams(
                text_document=types.TextDocumentIdentifier(uri),
                range=types.Range(types.Position(0, 0), types.Position(last_line, 0)),
            )
        )
        return list(result or [])


async def until(condition: Callable[[], bool | Awaitable[bool]], timeout: float = 30.0) -> None:
    """Poll ``condition`` (plain or a coroutine function) every 50 ms until it holds;
    ``TimeoutError`` after ``timeout`` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        held = condition()
        if inspect.isawaitable(held):
            held = await held
        if held:
            return
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("condition not reached")
        await asyncio.sleep(0.05)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PERFLINE_PROGRESS_DELAY"] = "0"
    return env


def _client(session_box: list[Session]) -> LanguageClient:
    client = make_test_lsp_client()

    @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def _inlay_refresh(ls: LanguageClient, params: Any) -> None:
        session_box[0].refreshes.append("inlayHint")

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _lens_refresh(ls: LanguageClient, params: Any) -> None:
        session_box[0].refreshes.append("codeLens")

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(ls: LanguageClient, params: types.RegistrationParams) -> None:
        session_box[0].registrations.append(params)

    @client.feature("perfline/resultChanged")
    def _changed(ls: LanguageClient, params: Any) -> None:
        session_box[0].changes.append(params._asdict() if hasattr(params, "_asdict") else params)

    return client


@contextlib.asynccontextmanager
async def start(
    root: Path,
    transport: str,
    caps: str,
    *,
    initialization_options: Any = None,
    configuration: dict[str, Any] | None = None,
    without_configuration_pull: bool = False,
) -> AsyncIterator[Session]:
    """A daemon on ``root`` driven by a client with the capabilities of ``caps``;
    ``configuration``: the client's settings sections (answers to ``workspace/configuration``);
    ``without_configuration_pull``: the client does not support those pulls."""
    box: list[Session] = []
    client = _client(box)
    process: asyncio.subprocess.Process | None = None
    if transport == "stdio":
        await client.start_io(sys.executable, "-m", "perfline", "serve", "--stdio", env=_env())
    else:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "perfline",
            "serve",
            "--tcp",
            "127.0.0.1:0",
            "-w",
            str(root),
            stderr=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            env=_env(),
        )
        assert process.stderr is not None
        line = (await asyncio.wait_for(process.stderr.readline(), 30)).decode()
        match = re.search(r"on tcp ([\d.]+):(\d+)", line)
        assert match, line
        await client.start_tcp(match.group(1), int(match.group(2)))
        # A TCP daemon admits a client that presents its token (from the discovery entry).
        token = token_for((match.group(1), int(match.group(2))))
        assert token is not None
        initialization_options = {"token": token, **(initialization_options or {})}
    session = Session(client, root, transport, caps)
    box.append(session)
    capabilities = client_capabilities(caps)
    if without_configuration_pull and capabilities.workspace is not None:
        capabilities.workspace.configuration = False
    for section, value in (configuration or {}).items():
        client.set_configuration(value, section=section)
    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
            initialization_options=initialization_options,
        )
    )
    session.encoding = str(result.capabilities.position_encoding or "utf-16")
    try:
        yield session
    finally:
        if transport == "stdio":
            await client.shutdown_session()
        else:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.shutdown_async(None), 5)
                client.exit(None)
            await client.stop()
            assert process is not None
            process.terminate()
            await asyncio.wait_for(process.wait(), 10)
