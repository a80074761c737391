"""The ``perfline`` command line.

The group is assembled lazily: each sub-command lives in its own module of
this package and is imported only when it is invoked, so ``perfline report``
never pays for the daemon's imports.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from perfline import __version__

#: command name -> "module:attribute" of its click command, relative to this package.
COMMANDS: dict[str, str] = {
    "report": "report:command",
    "schema": "schema:command",
    "analyze": "analyze:command",
    "operators": "operators:command",
    "serve": "serve:command",
    "query": "query:command",
    "annotate": "annotate:command",
    "watch": "watch:command",
    "compare": "compare:command",
    "check": "check:command",
    "export": "export:command",
    "batch": "batch:group",
    "mcp": "mcp:command",
    "profile": "profile:command",
}


class LazyGroup(click.Group):
    """A click group whose sub-commands are imported on first use, and whose errors are
    one line on stderr: ``error: perfline CMD: what is wrong (see perfline CMD --help)``
    (usage errors exit 2, as bad input does)."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        run = functools.partial(super().main, args, prog_name, complete_var, False, **extra)
        if not standalone_mode:
            return run()
        try:
            outcome: Any = run()
        except click.UsageError as error:
            where = error.ctx.command_path if error.ctx is not None else "perfline"
            message = error.format_message().rstrip(".")
            click.echo(f"error: {where}: {message} (see {where} --help)", err=True)
            sys.exit(error.exit_code)
        except click.ClickException as error:
            click.echo(f"error: {error.format_message()}", err=True)
            sys.exit(error.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(outcome if isinstance(outcome, int) else 0)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in COMMANDS if _available(name))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None or not _available(cmd_name):
            return None
        module_name, attribute = target.split(":")
        module = importlib.import_module(f"{__name__}.{module_name}")
        command = getattr(module, attribute)
        assert isinstance(command, click.Command)
        return command


def _available(name: str) -> bool:
    module_name = COMMANDS[name].split(":")[0]
    return importlib.util.find_spec(f"{__name__}.{module_name}") is not None


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from perfline.build_info import core_build

    click.echo(f"perfline, version {__version__}; core post-processing: {core_build()}")
    ctx.exit()


@click.group("perfline", cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version (and whether the core is compiled) and exit.",
)
def cli() -> None:
    """perfline: performance figures on the lines of your model source."""


def main() -> None:
    """Console-script entry point.

    A command that leaves a large document behind (``report``, ``analyze``) is not
    followed by the interpreter freeing it object by object (about a tenth of a second per
    hundred thousand entities): once stdout and stderr are flushed, the process ends at
    once and the OS reclaims its memory.
    """
    try:
        cli.main(standalone_mode=True)
        code: str | int | None = 0
    except SystemExit as finished:
        code = finished.code
    from perfline.clients.cli.output import retained

    if not retained():
        sys.exit(code)
    status = _exit_status(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        status = status or 1
    if "logging" in sys.modules:
        sys.modules["logging"].shutdown()
    os._exit(status)


def _exit_status(code: str | int | None) -> int:
    """What ``sys.exit(code)`` would make the exit status."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
