"""``perfline profile [--python PY] [--cuda] [--all-threads] [--steps N] [--warmup N] SCRIPT
[ARGS...]``.

Runs the user's PyTorch script under torch.profiler with the user's own interpreter and the
capture helper (``clients/torch_capture/helper.py``: torch and the standard library only), into
a new run folder ``<output-dir>/.perfline/runs/<time>-<random>/`` (the trace, its sidecar of
statement-level stacks, ``perfline-profile.json``: what the helper did); then reads the
sidecar back. This is the one place
perfline runs a program, and only because a person typed this command: nothing in a workspace
(``perfline.toml`` included) names the interpreter or the script.

The interpreter: ``--python``, else this one when it has torch, else a clear error naming
``--python``. The script's stdout and stderr pass through; a script that fails is reported
with its exit status (exit 1); a capture that recorded nothing (too few steps) is bad input
(exit 2). Progress lines go to stderr.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from perfline.clients.cli.announce import wrote
from perfline.clients.cli.common import DEFAULT_LIMIT, guarded
from perfline.clients.cli.output import print_text, retain, write_output
from perfline.clients.torch_api import analyse_capture, new_run_folder
from perfline.core.backends.torch_profiler.sidecar import Sidecar, check_trace, read_sidecar
from perfline.core.errors import InputError, Problem
from perfline.core.json_codec import read_json_input
from perfline.server.file_access import Root, open_stream, read_bytes

COMMAND = "perfline profile"


def capture_helper() -> Path:
    """The capture helper's file (run by path with the user's interpreter)."""
    from perfline.clients import torch_capture

    return Path(torch_capture.__file__).resolve().parent / "helper.py"


def choose_python(python: str | None) -> str:
    """The interpreter that runs the script: ``--python``, else this one if it has torch."""
    if python is not None:
        found = _executable(python)
        if found is None:
            raise InputError(COMMAND, Problem("--python", f"{python}: no such program"))
        return found
    if importlib.util.find_spec("torch") is not None:
        return sys.executable
    raise InputError(
        COMMAND,
        Problem(
            "--python",
            f"this Python ({sys.executable}) has no torch: name the Python of your PyTorch "
            "environment with --python PY (e.g. --python ~/venvs/torch/bin/python)",
        ),
    )


def _executable(name: str) -> str | None:
    expanded = os.path.expanduser(name)
    if os.sep in expanded:
        return os.path.abspath(expanded) if os.access(expanded, os.X_OK) else None
    import shutil

    return shutil.which(expanded)


def capture_command(
    python: str, run: Path, script: str, arguments: Sequence[str], options: dict[str, Any]
) -> list[str]:
    """The helper's command line."""
    command = [python, str(capture_helper()), "--out", str(run)]
    command += ["--steps", str(options["steps"]), "--warmup", str(options["warmup"])]
    if options["cuda"]:
        command.append("--cuda")
    if options["all_threads"]:
        command.append("--all-threads")
    if options["run_to_end"]:
        command.append("--run-to-end")
    return [*command, "--", os.path.abspath(script), *arguments]


def run_capture(command: Sequence[str], cwd: str | None = None) -> int:
    """Run the helper with the terminal's stdin/stdout/stderr; its exit status."""
    try:
        process = subprocess.Popen(list(command), cwd=cwd)
    except OSError as error:
        raise InputError(COMMAND, Problem("--python", f"{command[0]}: {error.strerror}")) from None
    try:
        return process.wait()
    except KeyboardInterrupt:
        # the script got the same Ctrl-C: the helper closes the capture and writes its files
        return process.wait()


#: What the helper writes into the run folder (``helper.REPORT_FILE``), and the name it had
#: before (a run folder of an older perfline is still read).
REPORT_FILE = "perfline-profile.json"
OLD_REPORT_FILE = "capture.json"


def read_capture(run: Path) -> dict[str, Any]:
    """What the helper said it did (``perfline-profile.json``, else the older
    ``capture.json``); no such file: the helper failed."""
    root = Root.user_given(run)
    for name in (REPORT_FILE, OLD_REPORT_FILE):
        target = run / name
        if target.exists():
            value = read_json_input(read_bytes(target, root=root, kind="json"), str(target))
            return value if isinstance(value, dict) else {}
    return {}


def read_run_sidecar(run: Path, trace: Path) -> Sidecar:
    """The sidecar of the run's trace, checked against the trace's bytes."""
    import hashlib

    root = Root.user_given(run)
    sidecar_file = Path(str(trace) + ".perfline.json")
    sidecar = read_sidecar(read_bytes(sidecar_file, root=root, kind="json"), str(sidecar_file))
    digest = hashlib.sha256()
    with open_stream(trace, root=root, kind="trace", gzip=False) as stream:
        while piece := stream.read(1 << 20):
            digest.update(piece)
    check_trace(sidecar, trace.name, digest.hexdigest())
    return sidecar


def _level_line(sidecar: Sidecar) -> str:
    if sidecar.level == "statement":
        return (
            f"statement level: {len(sidecar.stacks_by_external_id)} ops placed on their statements"
        )
    return f"function level only: {sidecar.reason}"


@click.command(
    "profile",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.option("--python", "python", default=None, metavar="PY", help="The Python that has torch.")
@click.option("--cuda", is_flag=True, help="Also record CUDA kernels (torch with CUDA).")
@click.option(
    "--all-threads",
    is_flag=True,
    help="Record the ops of every thread (torch then records no memory allocations).",
)
@click.option("--steps", type=click.IntRange(min=1), default=10, help="Steps recorded (10).")
@click.option("--warmup", type=click.IntRange(min=0), default=1, help="Steps skipped first (1).")
@click.option("--run-to-end", is_flag=True, help="Let the script finish after the recorded steps.")
@click.option("--output-dir", default=None, metavar="DIR", help="Where .perfline/runs/ goes (.).")
@click.argument("script", metavar="SCRIPT")
@click.argument("arguments", nargs=-1, type=click.UNPROCESSED, metavar="[ARGS]...")
@guarded
def command(
    python: str | None,
    cuda: bool,
    all_threads: bool,
    steps: int,
    warmup: int,
    run_to_end: bool,
    output_dir: str | None,
    script: str,
    arguments: tuple[str, ...],
) -> None:
    """Run SCRIPT under torch.profiler and put its time on your statements.

    A step is one optimizer step when the script steps a torch.optim optimizer, else one call
    of the outermost nn.Module; the script stops once the steps are recorded.
    """
    if not Path(script).is_file():
        raise InputError(script, "no such script")
    interpreter = choose_python(python)
    run = new_run_folder(output_dir or ".")
    options = {
        "steps": steps,
        "warmup": warmup,
        "cuda": cuda,
        "all_threads": all_threads,
        "run_to_end": run_to_end,
    }
    click.echo(
        f"perfline: profiling {script} with {interpreter} ({warmup} warm-up, {steps} "
        f"recorded step(s)) into {run}",
        err=True,
    )
    status = run_capture(capture_command(interpreter, run, script, arguments, options))
    capture = read_capture(run)
    script_status = int(capture.get("script_status", status))
    if capture.get("refused_option"):
        raise InputError(COMMAND, Problem(capture["refused_option"], capture.get("message", "")))
    if not capture:
        raise click.ClickException(
            f"the capture helper failed (exit status {status}) before writing {run}/{REPORT_FILE}"
        )
    if script_status != 0:
        raise click.ClickException(
            f"{script} failed with exit status {script_status} (files so far: {run})"
        )
    trace = capture.get("trace")
    if not trace:
        raise InputError(script, Problem("steps", str(capture.get("message", "no trace"))))
    sidecar = read_run_sidecar(run, Path(trace))
    click.echo(f"perfline: {_level_line(sidecar)}", err=True)
    wrote(trace, "the torch.profiler trace")
    wrote(Path(trace + ".perfline.json"), "its statement-level sidecar")
    processed = analyse_capture(
        Path(trace), near=os.path.abspath(script), cli_arguments=("profile", script, *arguments)
    )
    retain(processed)  # freed by the end of the process, not object by object
    write_output(processed, output_dir)
    print_text(processed, limit=DEFAULT_LIMIT)
