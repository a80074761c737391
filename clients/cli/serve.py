"""``perfline serve``: run the daemon over stdio (editors), loopback TCP or a Unix socket."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from perfline.clients.cli._connect import parse_tcp


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
        run_stdio(EngineHost(workspace, metric=metric))
        return
    root = (workspace or Path.cwd()).resolve()
    try:
        endpoint = parse_tcp(tcp) if tcp else None
        if endpoint is not None:
            check_loopback(endpoint[0])
        run_shared(
            EngineHost(root, shared=True, metric=metric),
            root,
            tcp=endpoint,
            socket_path=socket_path,
        )
    except ServeError as error:
        raise click.ClickException(str(error)) from None
    except KeyboardInterrupt:
        pass
