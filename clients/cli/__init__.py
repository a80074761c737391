"""The ``perfline`` command line.

The group is assembled lazily: each sub-command lives in its own module of
this package and is imported only when it is invoked, so ``perfline report``
never pays for the daemon's imports.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

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
}


class LazyGroup(click.Group):
    """A click group whose sub-commands are imported on first use."""

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


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
    """Console-script entry point."""
    sys.exit(cli.main(standalone_mode=True))
