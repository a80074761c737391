"""``perfline query METHOD [JSON]``: one JSON-RPC request, the result printed as JSON.

Talks to the daemon serving the workspace (or ``--tcp``/``--socket``); with no
daemon it answers in-process after analysing the workspace once. Exit status 2 for
bad input (PARAMS that are not JSON, an unknown method, job or entity, bad params, a
path outside the workspace, a job without a result), 1 for a failure of the daemon.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from perfline.clients.cli._connect import daemon_options, find_workspace, open_session
from perfline.clients.rpc import RpcError
from perfline.core.json_codec import indented_text

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 1

#: JSON-RPC error codes that mean the request was wrong, not the daemon.
CLIENT_MISTAKES = frozenset(
    {-32700, -32600, -32601, -32602, -32001, -32002, -32003, -32004, -32005, -32006}
)


@click.command("query")
@click.argument("method")
@click.argument("params", required=False)
@daemon_options
@click.option(
    "--no-local", is_flag=True, help="Fail instead of analysing in-process when no daemon runs."
)
def command(
    method: str,
    params: str | None,
    workspace: Path | None,
    tcp: str | None,
    socket_path: str | None,
    no_local: bool,
) -> None:
    """Send METHOD (e.g. perfline/jobs) with JSON params; print the JSON result."""
    if not method.startswith("perfline/"):
        method = "perfline/" + method
    try:
        parsed = json.loads(params) if params else None
    except json.JSONDecodeError as error:
        assert params is not None
        shown = params if len(params) <= 60 else params[:57] + "..."
        click.echo(f"error: perfline query: PARAMS {shown!r} is not JSON: {error}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    root = (workspace or find_workspace(Path.cwd())).resolve()
    session, _ = open_session(tcp, socket_path, root, allow_local=not no_local)
    try:
        result = session.request(method, parsed)
    except RpcError as error:
        click.echo(f"error {error.code}: {error.message}", err=True)
        sys.exit(EXIT_BAD_INPUT if error.code in CLIENT_MISTAKES else EXIT_INTERNAL)
    finally:
        session.close()
    click.echo(indented_text(result, 2))
