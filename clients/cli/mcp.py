"""``perfline mcp``: serve perfline's figures to a coding agent (Model Context Protocol, stdio).

The agent's client starts ``perfline mcp -w WORKSPACE`` and speaks MCP on its stdin/stdout;
the tools answer from the daemon serving the workspace (``--tcp``/``--socket``, or the one
advertised for it) or an in-process analysis (``clients/mcp``). Needs the ``mcp`` extra:
without it, one line on stderr and exit status 2. See ``docs/agents.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from perfline.clients.cli._connect import daemon_options, find_workspace


@click.command("mcp")
@daemon_options
def command(workspace: Path | None, tcp: str | None, socket_path: str | None) -> None:
    """Serve the workspace's figures to a coding agent over MCP (stdio).

    \b
    perfline mcp -w examples/kws
    """
    try:
        import mcp.server.mcpserver  # noqa: F401  (the optional SDK)
    except ImportError:
        click.echo(
            "error: perfline mcp needs the Model Context Protocol SDK: pip install 'perfline[mcp]'",
            err=True,
        )
        sys.exit(2)
    from perfline.clients.mcp.server import serve

    root = (workspace or find_workspace(Path.cwd())).resolve()
    serve(root, tcp=tcp, socket_path=socket_path)
