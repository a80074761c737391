"""``perfline query METHOD [JSON]``: one JSON-RPC request, the result printed as JSON.

Talks to the daemon serving the workspace (or ``--tcp``/``--socket``); with no
daemon it answers in-process after analysing the workspace once.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from perfline.clients.cli._connect import daemon_options, find_workspace, open_session
from perfline.clients.rpc import RpcError


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
        raise click.BadParameter(f"PARAMS is not JSON: {error}", param_hint="PARAMS") from None
    root = (workspace or find_workspace(Path.cwd())).resolve()
    session, _ = open_session(tcp, socket_path, root, allow_local=not no_local)
    try:
        result = session.request(method, parsed)
    except RpcError as error:
        click.echo(f"error {error.code}: {error.message}", err=True)
        sys.exit(1)
    finally:
        session.close()
    click.echo(json.dumps(result, indent=2, ensure_ascii=False))
