"""The MCP SDK's own client, as a coding agent's: start a server command over stdio, call one
tool, return its structured answer (a tool error fails the test with its text). Needs the
``mcp`` extra (the callers skip without it)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any


def call_tool(
    command: str,
    args: list[str],
    tool: str,
    arguments: dict[str, Any],
    *,
    env: dict[str, str],
    cwd: Path | None = None,
) -> Any:
    """``tool(arguments)`` of the server ``command args``, started with ``env`` in ``cwd``."""
    import mcp

    async def conversation() -> Any:
        parameters = mcp.StdioServerParameters(
            command=command, args=args, env=env, cwd=str(cwd) if cwd else None
        )
        async with (
            mcp.stdio_client(parameters) as (read, write),
            mcp.ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool(tool, arguments)
            assert not result.is_error, result.content
            return result.structured_content

    return asyncio.run(conversation())
