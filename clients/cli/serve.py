"""``perfline serve``: run the daemon over stdio (editors), loopback TCP or a Unix socket.

Before serving, what would only fail later is checked so that it fails now with one line
and exit status 2: the workspace's ``perfline.toml`` (when the workspace is known at start:
``--workspace``, or the current folder for TCP and sockets) and a TCP port another process
holds. Once serving, the daemon keeps its own rules (a configuration error is a diagnostic
and the last valid configuration stays in force).
"""

from __future__ import annotations

import errno
import logging
import socket
import sys
from pathlib import Path

import click

from perfline.clients.cli._connect import exit_on_config_error, parse_tcp

EXIT_BAD_INPUT = 2


def _setup_logging(log_file: Path | None, verbose: bool) -> None:
    level = logging.DEBUG if verbose else logging.INFO
    fmt = "%(asctime)s %(levelname)s %(name)s: %(message)s"
    if log_file is not None:
        logging.basicConfig(filename=str(log_file), level=level, format=fmt)
    else:
        # stderr only: in stdio mode stdout carries the protocol.
        logging.basicConfig(
            stream=sys.stderr, level=logging.WARNING if not verbose else level, format=fmt
        )
    logging.getLogger("pygls").setLevel(logging.WARNING if not verbose else logging.INFO)


@click.command("serve")
@click.option("--stdio", "stdio", is_flag=True, help="Serve over stdin/stdout (the default).")
@click.option(
    "--tcp", "tcp", metavar="HOST:PORT", help="Serve on loopback TCP (127.0.0.1 or ::1 only)."
)
@click.option(
    "--socket",
    "socket_path",
    type=click.Path(path_type=Path),
    help="Serve on a Unix socket (mode 0600).",
)
@click.option(
    "--workspace",
    "-w",
    type=click.Path(file_okay=False, path_type=Path),
    help="Workspace folder (default: the editor's root in stdio mode, else the current folder).",
)
@click.option(
    "--log-file", type=click.Path(dir_okay=False, path_type=Path), help="Write logs to this file."
)
@click.option("--metric", help="The metric shown in inlay hints (default: chosen per result).")
@click.option("--verbose", "-v", is_flag=True, help="Log more.")
def command(
    stdio: bool,
    tcp: str | None,
    socket_path: Path | None,
    workspace: Path | None,
    log_file: Path | None,
    metric: str | None,
    verbose: bool,
) -> None:
    """Run the perfline daemon (LSP + the perfline/* JSON-RPC API)."""
    from perfline.server.host import EngineHost
    from perfline.server.serve import ServeError, check_loopback, run_shared, run_stdio

    if sum(bool(x) for x in (stdio, tcp, socket_path)) > 1:
        raise click.UsageError("choose one of --stdio, --tcp, --socket")
    _setup_logging(log_file, verbose)
    if tcp is None and socket_path is None:
        if workspace is not None:
            exit_on_config_error(workspace.resolve())
        run_stdio(EngineHost(workspace, metric=metric))
        return
    root = (workspace or Path.cwd()).resolve()
    endpoint = parse_tcp(tcp) if tcp else None
    try:
        if endpoint is not None:
            check_loopback(endpoint[0])
        exit_on_config_error(root)
        if endpoint is not None:
            _exit_if_taken(endpoint)
        run_shared(
            EngineHost(root, shared=True, metric=metric),
            root,
            tcp=endpoint,
            socket_path=socket_path,
        )
    except ServeError as error:
        raise click.ClickException(str(error)) from None
    except OSError as error:
        if error.errno != errno.EADDRINUSE or endpoint is None:
            raise
        _exit_in_use(endpoint)
    except KeyboardInterrupt:
        pass


def _exit_if_taken(endpoint: tuple[str, int]) -> None:
    """Exit 2 with one line when another process listens on the TCP port (checked before
    the workspace is analysed; binding it later would fail with a traceback)."""
    host, port = endpoint
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as asyncio binds
        try:
            probe.bind((host, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                _exit_in_use(endpoint)
            raise


def _exit_in_use(endpoint: tuple[str, int]) -> None:
    host, port = endpoint
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"error: {shown}:{port} is already in use (another perfline serve?)", err=True)
    sys.exit(EXIT_BAD_INPUT)
