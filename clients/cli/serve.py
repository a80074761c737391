"""``perfline serve``: run the daemon over stdio (editors), loopback TCP or a Unix socket.

Before serving, what would only fail later is checked so that it fails now with one line
and exit status 2: the workspace's ``perfline.toml`` (when the workspace is known at start:
``--workspace``, or the current folder for TCP and sockets) and a TCP port another process
holds. Once serving, the daemon keeps its own rules (a configuration error is a diagnostic
and the last valid configuration stays in force).

Logs go to a rotating file by default (``--log-file``, else ``serve.log`` under
``$XDG_STATE_HOME/perfline``, i.e. ``~/.local/state/perfline``; 5 MB, 3 backups): INFO
and up (client mistakes as one line each), DEBUG with ``--verbose``. Warnings and errors
also go to stderr (an editor shows it); nothing ever goes to stdout, which carries the
protocol in stdio mode.
"""

from __future__ import annotations

import errno
import logging
import logging.handlers
import os
import socket
import sys
from pathlib import Path
from typing import Any

import click

from perfline.clients.cli._connect import exit_on_config_error, parse_tcp
from perfline.core.errors import InputError
from perfline.server.file_access import Root, open_append

EXIT_BAD_INPUT = 2
#: The default limit of a message body (bytes), as ``server.lsp.frame_reader``'s.
DEFAULT_MAX_REQUEST = 64 * 1024 * 1024
#: Size of the log file before it is rotated, and how many old ones are kept.
LOG_BYTES = 5 * 1024 * 1024
LOG_BACKUPS = 3
_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"
#: The attribute that marks the handlers this module added.
_MARK = "perfline_serve"


def default_log_file() -> Path:
    """``$XDG_STATE_HOME/perfline/serve.log`` (``~/.local/state/perfline/serve.log``)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "perfline" / "serve.log"


class GuardedLogFile(logging.handlers.RotatingFileHandler):
    """The rotating log file, opened through ``file_access.open_append``: made with mode
    0600 (its folder 0700), never through a link, refused unless a regular file."""

    def _open(self) -> Any:
        return open_append(self.baseFilename, root=Root.user_given())


def _setup_logging(log_file: Path | None, verbose: bool) -> None:
    """A rotating file at INFO (DEBUG with ``verbose``) when ``log_file`` is given, and
    stderr at WARNING; pygls' own chatter (every message sent, at INFO) stays out."""
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, _MARK, False)]:  # set up once
        root.removeHandler(old)
        old.close()
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    errors = logging.StreamHandler(sys.stderr)
    errors.setLevel(logging.DEBUG if verbose and log_file is None else logging.WARNING)
    _add(root, errors)
    if log_file is not None:
        try:
            handler = GuardedLogFile(
                log_file, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8"
            )
        except (OSError, InputError) as error:
            click.echo(f"perfline: cannot write the log file {log_file}: {error}", err=True)
        else:
            _add(root, handler)
    logging.getLogger("pygls").setLevel(logging.INFO if verbose else logging.WARNING)


def _retain_arenas() -> None:
    """The daemon keeps freed memory arenas for its next run (``server.arena_retention``)."""
    from perfline.server.arena_retention import ENVIRONMENT_VARIABLE, retain_freed_arenas

    limit = retain_freed_arenas()
    logging.getLogger(__name__).info(
        "freed memory arenas kept for reuse: %s",
        f"up to {limit} MiB ({ENVIRONMENT_VARIABLE})" if limit else "no (pure build, or 0)",
    )


def _add(root: logging.Logger, handler: logging.Handler) -> None:
    handler.setFormatter(logging.Formatter(_FORMAT))
    setattr(handler, _MARK, True)
    root.addHandler(handler)


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
    "--log-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The rotating log file (default: ~/.local/state/perfline/serve.log, or under "
    "$XDG_STATE_HOME).",
)
@click.option("--no-log-file", is_flag=True, help="Log warnings and errors to stderr only.")
@click.option(
    "--max-request-bytes",
    type=click.IntRange(min=1024),
    default=DEFAULT_MAX_REQUEST,
    show_default=True,
    help="Refuse a message whose body is larger (answered with an error, not read).",
)
@click.option("--metric", help="The metric shown in inlay hints (default: chosen per result).")
@click.option("--verbose", "-v", is_flag=True, help="Log more.")
def command(
    stdio: bool,
    tcp: str | None,
    socket_path: Path | None,
    workspace: Path | None,
    log_file: Path | None,
    no_log_file: bool,
    max_request_bytes: int,
    metric: str | None,
    verbose: bool,
) -> None:
    """Run the perfline daemon (LSP + the perfline/* JSON-RPC API).

    Over TCP (loopback only) a client presents the token of the daemon's private
    discovery file first (the Python client and the CLI do it for you); see docs/api.md.
    """
    from perfline.server.host import EngineHost
    from perfline.server.serve import ServeError, check_loopback, run_shared, run_stdio

    if sum(bool(x) for x in (stdio, tcp, socket_path)) > 1:
        raise click.UsageError("choose one of --stdio, --tcp, --socket")
    chosen_log = None if no_log_file else (log_file or default_log_file())
    if tcp is None and socket_path is None:
        if workspace is not None:
            exit_on_config_error(workspace.resolve())
        _setup_logging(chosen_log, verbose)
        _retain_arenas()
        run_stdio(EngineHost(workspace, metric=metric), max_body=max_request_bytes)
        return
    root = (workspace or Path.cwd()).resolve()
    endpoint = parse_tcp(tcp) if tcp else None
    try:
        if endpoint is not None:
            check_loopback(endpoint[0])
        exit_on_config_error(root)
        if endpoint is not None:
            _exit_if_taken(endpoint)
        _setup_logging(chosen_log, verbose)
        _retain_arenas()
        run_shared(
            EngineHost(root, shared=True, metric=metric),
            root,
            tcp=endpoint,
            socket_path=socket_path,
            max_body=max_request_bytes,
        )
    except ServeError as error:  # a non-loopback --tcp, a socket path in use: bad input
        click.echo(f"error: {error}", err=True)
        sys.exit(EXIT_BAD_INPUT)
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
