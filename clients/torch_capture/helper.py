"""The capture helper of ``perfline profile``, run by path with the user's interpreter:

    PY helper.py --out DIR [--steps N] [--warmup N] [--cuda] [--all-threads] [--run-to-end]
        -- SCRIPT [ARGS...]

It runs SCRIPT as ``python SCRIPT ARGS`` would (``runpy.run_path`` as ``__main__``,
``sys.argv = [SCRIPT, *ARGS]``, ``sys.path[0]`` = the script's folder) under torch.profiler
(``session.CaptureSession``, auto steps), stops the script once the steps are recorded (unless
``--run-to-end``), and writes DIR/NAME.pt.trace.json, its sidecar, and
DIR/perfline-profile.json (``REPORT_FILE``, a name of its own: a folder holding
``capture.json`` is an NX structured capture): what happened, for perfline
(``script_status``, ``trace``, ``sidecar``, ``recorded``, ``message``; ``refused_option`` when
an option cannot work here: no torch, no CUDA device). Progress goes to stderr on a terminal.
The script's stdout and stderr are its own. Needs torch and the standard library only; its
sibling modules are loaded as the package ``_perfline_torch_capture`` (nothing is added to
``sys.path``). Exit status: the script's, 2 for a refused option, or 3 when no trace could be
recorded.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import runpy
import sys
import traceback
from typing import Any

PACKAGE = "_perfline_torch_capture"
NO_TRACE = 3
REPORT_FILE = "perfline-profile.json"


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="perfline-torch-capture")
    parser.add_argument("--out", required=True)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--cuda", action="store_true")
    parser.add_argument("--all-threads", action="store_true")
    parser.add_argument("--run-to-end", action="store_true")
    parser.add_argument("--name", default=None)
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    return parser.parse_args(argv)


def _load_session_module() -> Any:
    """This folder as the package ``_perfline_torch_capture``; returns its session module."""
    if PACKAGE not in sys.modules:
        folder = os.path.dirname(os.path.abspath(__file__))
        spec = importlib.util.spec_from_file_location(
            PACKAGE, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder]
        )
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = package
        spec.loader.exec_module(package)
    return importlib.import_module(PACKAGE + ".session")


def _report(out: str, result: dict[str, Any]) -> None:
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, REPORT_FILE), "w", encoding="utf-8") as stream:
        json.dump(result, stream)
    print(f"perfline: {result['message']}", file=sys.stderr, flush=True)


def _script_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _print_script_traceback(error: BaseException, script: str) -> None:
    """The traceback as python SCRIPT prints it: from the script's first frame on."""
    tb = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != script:
        tb = tb.tb_next
    traceback.print_exception(type(error), error, tb or error.__traceback__)


def _refusal(options: argparse.Namespace) -> tuple[str, str] | None:
    """(option, what is wrong) when the capture cannot start; torch is imported here."""
    if options.steps < 1 or options.warmup < 0:
        return "--steps", "--steps must be 1 or more, --warmup 0 or more"
    try:
        import torch
    except ImportError as error:
        return "--python", f"{sys.executable} cannot import torch ({error})"
    if options.cuda and not torch.cuda.is_available():
        return "--cuda", f"torch {torch.__version__} of {sys.executable} sees no CUDA device"
    return None


def _progress(session: Any) -> None:
    """One line rewritten in place on a terminal: where the capture is."""
    if not sys.stderr.isatty():
        return
    done = session.boundaries
    warming = min(done, session.warmup)
    recorded = session.recorded_steps()
    print(
        f"\rperfline: warm-up {warming}/{session.warmup}, recorded {recorded}/{session.steps}",
        end="",
        file=sys.stderr,
        flush=True,
    )


def _run(session_module: Any, session: Any, script: str) -> int:
    """Run the script under the session; the exit status ``python SCRIPT`` would have."""
    status = 0
    session.start()
    try:
        try:
            runpy.run_path(script, run_name="__main__")
        finally:
            sys.stdout.flush()
        session.close_pending_step()
    except session_module.CaptureDone:
        status = 0
    except SystemExit as leaving:
        status = _script_status(leaving.code)
        if status == 0:
            session.close_pending_step()
    except KeyboardInterrupt as error:
        _print_script_traceback(error, script)
        status = 130
    except BaseException as error:
        _print_script_traceback(error, script)
        status = 1
    finally:
        session.finish()
        if sys.stderr.isatty():
            print(file=sys.stderr)
    return status


def main(argv: list[str]) -> int:
    options = _arguments(argv)
    out = os.path.abspath(options.out)
    script = os.path.abspath(options.script)
    args = options.args[1:] if options.args[:1] == ["--"] else options.args
    name = options.name or os.path.splitext(os.path.basename(script))[0]
    result: dict[str, Any] = {"script_status": 0, "trace": None, "sidecar": None, "recorded": 0}
    refused = _refusal(options)
    if refused is not None:
        result.update(refused_option=refused[0], message=refused[1])
        _report(out, result)
        return 2
    session_module = _load_session_module()
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(script)
    session = session_module.CaptureSession(
        out,
        name,
        steps=options.steps,
        warmup=options.warmup,
        cuda=options.cuda,
        all_threads=options.all_threads,
        auto_steps=True,
        stop_when_done=not options.run_to_end,
        leading_files=frozenset([os.path.abspath(__file__)]),
        known_files=(script,),
        progress=_progress,
    )
    status = _run(session_module, session, script)
    result["script_status"] = status
    result["recorded"] = session.recorded_steps()
    if session.written:
        result["trace"] = session.trace_path
        result["sidecar"] = session.sidecar_path
        stopped = "; script stopped there" if session.stopped_early else ""
        result["message"] = (
            f"recorded {result['recorded']} step(s) (a step: {session.step_on}) after "
            f"{options.warmup} warm-up{stopped}: {session.trace_path}"
        )
    else:
        result["message"] = (
            f"no trace: the script ended after {session.boundaries} step(s) (a step: "
            f"{session.step_on}), and --warmup {options.warmup} discards the first "
            f"{options.warmup}; run with --warmup 0 or let the script run more steps"
        )
    _report(out, result)
    if status != 0:
        return status
    return 0 if session.written else NO_TRACE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
