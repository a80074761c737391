"""``perfline mcp``: serve perfline's figures to a coding agent (Model Context Protocol, stdio).

The agent's client starts ``perfline mcp -w WORKSPACE`` and speaks MCP on its stdin/stdout;
the tools answer from the daemon serving the workspace (``--tcp``/``--socket``, or the one
advertised for it) or an in-process analysis (``clients/mcp``). Its standard error holds plain
one-line log records, WARNING and up (INFO with ``-v``: ``clients/mcp/logs.py``). Needs the
``mcp`` extra: without it, one line on stderr and exit status 2. See ``docs/agents.md``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from perfline.clients.cli._connect import daemon_options, daemon_tcp, find_workspace


@click.command("mcp")
@daemon_options
@click.option(
    "--verbose", "-v", is_flag=True, help="Log INFO records too (each run's phases) on stderr."
)
def command(
    workspace: Path | None, tcp: str | None, socket_path: str | None, verbose: bool
) -> None:
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
    from perfline.clients.mcp.logs import log_to_stderr
    from perfline.clients.mcp.server import serve

    if tcp:
        daemon_tcp(tcp)  # refused now (exit 2), not at the agent's first tool call
    root = (workspace or find_workspace(Path.cwd())).resolve()
    log_to_stderr(verbose)
    serve(root, tcp=tcp, socket_path=socket_path)
