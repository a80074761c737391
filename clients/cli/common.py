"""Shared plumbing of the CLI commands: reading input documents, the collapse and
float-sums options, the configuration, and turning errors into exit statuses (2 for bad
input, 1 for internal failure). Writing the result and the text report: ``output.py``.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import click

from perfline.clients.cli.files import read_config, read_file
from perfline.core.errors import InputError
from perfline.core.json_codec import read_json_input
from perfline.core.workspace_config import (
    CONFIG_FILE_NAME,
    FLOAT_SUMS_MODES,
    WorkspaceConfig,
    parse_workspace_config,
)

if TYPE_CHECKING:
    from perfline.core.pipeline import PipelineSettings

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 1

P = ParamSpec("P")
R = TypeVar("R")


def guarded(function: Callable[P, R]) -> Callable[P, R]:
    """Run a command body; bad input -> stderr + exit 2, anything else -> exit 1."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return function(*args, **kwargs)
        except InputError as error:
            click.echo(f"error: {error.render()}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except Exception as error:  # an internal failure, not the user's input
            click.echo(f"internal error: {type(error).__name__}: {error}", err=True)
            if os.environ.get("PERFLINE_DEBUG"):
                import traceback

                traceback.print_exc()
            else:
                click.echo("(set PERFLINE_DEBUG=1 for the traceback)", err=True)
            sys.exit(EXIT_INTERNAL)

    return wrapper


def read_json(path: str) -> Any:
    """Parse a JSON file (``-`` is standard input); errors name the line and column."""
    source = "<stdin>" if path == "-" else path
    if path != "-":
        data = read_file(path, "a JSON file")
    else:
        try:
            data = sys.stdin.buffer.read()
        except OSError as error:
            raise InputError(source, f"cannot read: {error.strerror}") from None
    # NaN and infinities are kept, as the reference keeps them: validation reports them
    # where they are a problem (metric values) and the output writes them as it does.
    return read_json_input(data, source, keep_non_finite=True)


def collapse_options(function: Callable[P, R]) -> Callable[P, R]:
    """``--collapse KIND:ATTRIBUTE:GLOB[,GLOB...]`` (repeatable) and ``--no-default-collapse``."""
    function = click.option(
        "--no-default-collapse",
        is_flag=True,
        help="Do not apply the producers' default collapse rules (bare core behaviour).",
    )(function)
    return click.option(
        "--collapse",
        "collapse",
        multiple=True,
        metavar="KIND:ATTRIBUTE:GLOB[,GLOB...]",
        help="Collapse entities of KIND whose ATTRIBUTE matches a glob (repeatable).",
    )(function)


def find_config(explicit: str | None, near: str | None) -> Path | None:
    """``--config`` if given, else the nearest ``perfline.toml`` from ``near``'s folder upwards."""
    if explicit is not None:
        return Path(explicit)
    if near is None or near == "-":
        return None
    folder = Path(near).resolve().parent
    for candidate in (folder, *folder.parents):
        config = candidate / CONFIG_FILE_NAME
        if config.is_file():
            return config
    return None


def load_config(path: Path | None) -> WorkspaceConfig:
    """The parsed configuration (the empty default without a file)."""
    if path is None:
        return WorkspaceConfig()
    return parse_workspace_config(read_config(path), source=str(path))


def float_sums_option(function: Callable[P, R]) -> Callable[P, R]:
    """``--float-sums {exact,reference}`` (default: ``float_sums`` of perfline.toml, else exact)."""
    return click.option(
        "--float-sums",
        "float_sums",
        type=click.Choice(FLOAT_SUMS_MODES),
        default=None,
        help="How figures added up from float values are summed: 'exact' (correctly rounded "
        "sum of the origins' values, the default) or 'reference' (mlia 0.12.3's order and "
        "rounding, byte for byte). Default: float_sums in perfline.toml, else exact.",
    )(function)


def pipeline_settings(
    collapse: tuple[str, ...],
    no_default_collapse: bool,
    config: WorkspaceConfig | None = None,
    float_sums: str | None = None,
) -> PipelineSettings:
    """Settings from the configuration (``[filtering]``, ``float_sums``) and the options;
    an option given on the command line wins over the file."""
    from perfline.core.collapse_rules import parse_rule
    from perfline.core.pipeline import PipelineSettings

    config = config or WorkspaceConfig()
    rules = config.collapse_rules + tuple(parse_rule(text) for text in collapse)
    mode = float_sums or config.float_sums
    assert mode in FLOAT_SUMS_MODES
    return PipelineSettings(
        collapse_rules=rules,
        use_backend_defaults=config.use_backend_defaults and not no_default_collapse,
        float_sums="reference" if mode == "reference" else "exact",
    )


DEFAULT_LIMIT = 20
"""Rows per table of the text report unless ``--limit N`` or ``--all``."""


def text_options(function: Callable[P, R]) -> Callable[P, R]:
    """``--limit N`` (rows per table of the text report) and ``--all``."""
    function = click.option(
        "--all", "show_all", is_flag=True, help="Every row of every table of the text report."
    )(function)
    return click.option(
        "--limit",
        type=click.IntRange(min=1),
        default=DEFAULT_LIMIT,
        show_default=True,
        metavar="N",
        help="Rows per table of the text report (the heaviest first).",
    )(function)


class NotADocumentError(InputError):
    """A JSON file that is not a standardized-output document: one line says so, then the
    validation's details."""

    def __init__(self, source: str | None, summary: str, details: InputError) -> None:
        self.summary = summary
        self.details = details
        super().__init__(source, details.problems)

    def render(self) -> str:
        head = f"{self.source}: " if self.source else ""
        lines = [f"{head}not a standardized-output document (schema 1.2.0): {self.summary}"]
        lines.extend(f"  - {problem}" for problem in self.problems)
        return "\n".join(lines)


def not_a_document(raw: Any, error: InputError) -> InputError:
    """``error``, headed by "not a standardized-output document" when ``raw`` does not even
    look like one (not an object, or neither ``schema_version`` nor ``results``)."""
    if isinstance(raw, dict) and ("schema_version" in raw or "results" in raw):
        return error
    if isinstance(raw, dict):
        keys = ", ".join(repr(key) for key in list(raw)[:5]) or "none"
        more = ", ..." if len(raw) > 5 else ""
        summary = f"it has no schema_version and no results (its keys: {keys}{more})"
    else:
        summary = f"it is a JSON {_json_type(raw)}, not an object"
    return NotADocumentError(error.source, summary, error)


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return "number"
