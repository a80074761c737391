"""Shared options of the daemon client commands: which daemon (or none) to talk to.

Resolution: ``--tcp``/``--socket`` if given; else the daemon advertised for the
workspace (``--workspace`` or the folder holding ``perfline.toml`` above the
current folder / the given file); else, where allowed, an in-process session.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Protocol

import click

from perfline.clients.rpc import Client, Endpoint, LocalSession, RpcError, endpoint_for_workspace

CONFIG = "perfline.toml"


class Session(Protocol):
    def request(self, method: str, params: Any = None) -> Any: ...

    def close(self) -> None: ...


class Refused(click.ClickException):
    """The daemon refused the connection (a client mistake: exit status 2)."""

    exit_code = 2


def find_workspace(start: Path) -> Path:
    """The nearest folder at or above ``start`` with ``perfline.toml``; else its folder."""
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    for candidate in [folder, *folder.parents]:
        if (candidate / CONFIG).is_file():
            return candidate
    return folder


def parse_tcp(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", value
    try:
        return host.strip("[]") or "127.0.0.1", int(port)
    except ValueError:
        raise click.BadParameter(f"expected HOST:PORT, got {value!r}") from None


def endpoint_from_options(
    tcp: str | None, socket_path: str | None, workspace: Path
) -> Endpoint | None:
    if tcp:
        return Endpoint(tcp=parse_tcp(tcp))
    if socket_path:
        return Endpoint(socket=socket_path)
    return endpoint_for_workspace(workspace)


def open_session(
    tcp: str | None,
    socket_path: str | None,
    workspace: Path,
    *,
    allow_local: bool = True,
    metric: str | None = None,
    local: bool = False,
) -> tuple[Session, str]:
    """A daemon connection or an in-process session, and a description of which
    (``local``: in-process, whatever daemon runs)."""
    endpoint = None if local else endpoint_from_options(tcp, socket_path, workspace)
    if endpoint is not None:
        try:
            return Client.connect(endpoint), f"daemon on {endpoint}"
        except OSError as error:
            if tcp or socket_path:
                raise click.ClickException(
                    f"cannot connect to the daemon on {endpoint}: {error}"
                ) from None
        except RpcError as error:  # e.g. -32006: no token for that address here
            raise Refused(
                f"the daemon on {endpoint} refused the connection: error {error.code}: "
                f"{error.message}"
            ) from None
    if not allow_local:
        raise click.ClickException(
            f"no running daemon serves {workspace}; start one with "
            f"`perfline serve --tcp 127.0.0.1:PORT -w {workspace}`"
        )
    exit_on_config_error(workspace)
    return LocalSession(workspace, metric=metric), "in-process analysis"


def exit_on_config_error(workspace: Path) -> None:
    """A workspace whose ``perfline.toml`` is invalid is never analysed with another
    configuration (nor with jobs discovered instead): print every problem (file, line,
    column, what was expected) on stderr and exit 2."""
    from perfline.server.jobs.registry import default_registry
    from perfline.server.workspace import load_config

    error = load_config(workspace, known_backends=list(default_registry())).error
    if error is None:
        return
    click.echo(f"error: {error.with_source(str(workspace / CONFIG)).render()}", err=True)
    sys.exit(2)


def daemon_options(function: Any) -> Any:
    function = click.option("--socket", "socket_path", metavar="PATH", help="Daemon Unix socket.")(
        function
    )
    function = click.option("--tcp", metavar="HOST:PORT", help="Daemon TCP address (loopback).")(
        function
    )
    function = click.option(
        "--workspace",
        "-w",
        type=click.Path(file_okay=False, path_type=Path),
        help="Workspace folder (default: found from the current folder).",
    )(function)
    return function
