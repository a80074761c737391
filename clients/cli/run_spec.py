"""One run, given as one argument, to its processed document: the dispatch table.

A *run spec* is one string naming one run, as ``perfline compare``, ``perfline check`` and
``perfline batch run`` take it: a standardized document (``mlia-output.json``, raw or
processed), a folder holding ``mlia-output/mlia-output.json`` (the output of ``report`` or
``analyze``), a torch.profiler trace or a ``perfline profile`` run folder holding traces,
or the inputs ``perfline analyze`` takes joined with commas (``x.etrecord,x.etdump``,
``model.onnx,profile.json``) or a folder of estimator outputs.
``load_run`` reads or analyses it (no estimator is ever run: estimator outputs only);
``run_files`` names the files it reads, so a caller can hash a run's content before
analysing it.

Inputs that are not a document go through ``DISPATCH``, the first entry whose ``takes``
accepts them; a new route (a torch trace) is one more entry here, as it is one more
``analyze_routes.ROUTES`` entry for the messages that list the routes. The routes' own
modules (``analyze_onnxruntime``, ``analyze_measured``, ``analyze``) are imported only when
their route runs. Pure dispatch: the cost is the route's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfline.clients.cli.common import read_json
from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings, is_postprocessed, postprocess
from perfline.server.file_access import scratch_folder

#: Where ``report`` and ``analyze`` put the processed document inside their output folder.
NESTED_OUTPUT = Path("mlia-output") / "mlia-output.json"


@dataclass(frozen=True)
class Dispatch:
    """One backend route: which inputs it takes (for a command, ``compare`` or ``batch``,
    whose messages name it), and how it turns them into a document."""

    name: str
    takes: Callable[[Sequence[str], str], bool]
    run: Callable[[Sequence[str], PipelineSettings, Sequence[str]], dict[str, Any]]


def _takes_torch(inputs: Sequence[str], command: str) -> bool:
    from perfline.clients.cli.analyze_torch import wants_torch

    return wants_torch(inputs)


def _run_torch(
    inputs: Sequence[str], settings: PipelineSettings, cli_arguments: Sequence[str]
) -> dict[str, Any]:
    from perfline.clients.cli.analyze_torch import run_torch

    return run_torch(inputs, settings=settings, cli_arguments=cli_arguments)


def _takes_onnxruntime(inputs: Sequence[str], command: str) -> bool:
    from perfline.clients.cli.analyze_onnxruntime import wants_onnxruntime

    return wants_onnxruntime(inputs)


def _run_onnxruntime(
    inputs: Sequence[str], settings: PipelineSettings, cli_arguments: Sequence[str]
) -> dict[str, Any]:
    from perfline.clients.cli.analyze_onnxruntime import run_onnxruntime

    return run_onnxruntime(
        inputs,
        warmup_runs=None,
        optimized_model=None,
        settings=settings,
        cli_arguments=cli_arguments,
    )


def _takes_measured(inputs: Sequence[str], command: str) -> bool:
    from perfline.clients.cli.analyze_measured import wants_measured

    return wants_measured(inputs, ())


def _run_measured(
    inputs: Sequence[str], settings: PipelineSettings, cli_arguments: Sequence[str]
) -> dict[str, Any]:
    from perfline.clients.cli.analyze_measured import run_measured

    return run_measured(inputs, settings=settings, cli_arguments=cli_arguments)


def _takes_estimator_outputs(inputs: Sequence[str], command: str) -> bool:
    """The last route: anything else must be a model and/or estimator outputs
    (``input_kind`` raises the message that lists the routes that take such a file)."""
    from perfline.clients.cli.analyze import input_kind

    input_kind(inputs, (), command="compare" if command != "analyze" else command)
    return True


def _run_estimator_outputs(
    inputs: Sequence[str], settings: PipelineSettings, cli_arguments: Sequence[str]
) -> dict[str, Any]:
    from perfline.clients.cli.analyze import run_estimator_route

    with scratch_folder("perfline-run-") as folder:
        processed, _ = run_estimator_route(
            inputs,
            output_dir=folder,
            estimator=None,
            system_config="default",
            compiler_config="default",
            performance=True,
            compatibility=False,
            settings=settings,
            cli_arguments=cli_arguments,
        )
    return processed


#: The routes of inputs that are not a document, tried in order.
DISPATCH: tuple[Dispatch, ...] = (
    Dispatch("torch.profiler", _takes_torch, _run_torch),
    Dispatch("onnxruntime", _takes_onnxruntime, _run_onnxruntime),
    Dispatch("measured", _takes_measured, _run_measured),
    Dispatch("estimator outputs", _takes_estimator_outputs, _run_estimator_outputs),
)


def analyse_inputs(
    inputs: Sequence[str], settings: PipelineSettings, cli_arguments: Sequence[str]
) -> dict[str, Any]:
    """The processed document of ``inputs`` by the first route that takes them, as
    ``perfline analyze`` makes it (no estimator run); ``cli_arguments[0]`` is the command."""
    from perfline.clients.cli.analyze import require_existing

    require_existing(inputs)
    command = cli_arguments[0] if cli_arguments else "compare"
    for route in DISPATCH:
        if route.takes(inputs, command):
            return route.run(inputs, settings, cli_arguments)
    raise InputError(", ".join(inputs), "no route takes these inputs")


def load_run(
    spec: str, role: str, settings: PipelineSettings, command: str = "compare"
) -> tuple[dict[str, Any], str]:
    """The processed document of one run spec, and its display name; ``role`` names the
    run in messages (``baseline``), ``command`` heads the recorded CLI arguments."""
    if "," in spec:
        inputs = [part for part in spec.split(",") if part]
        for item in inputs:
            if not Path(item).exists():
                raise InputError(item, f"no such file or folder (inputs of the {role})")
        return analyse_inputs(inputs, settings, [command, *inputs]), spec
    path = Path(spec)
    if not path.exists():
        raise InputError(spec, f"no such file or folder (the {role})")
    from perfline.clients.cli.analyze_torch import folder_traces, wants_torch

    if path.is_dir():
        for candidate in (path / NESTED_OUTPUT, path / NESTED_OUTPUT.name):
            if candidate.is_file():
                return read_document(str(candidate), settings), str(candidate)
        traces = folder_traces(path)  # a perfline profile run folder
        inputs = traces or [spec]
        return analyse_inputs(inputs, settings, [command, *inputs]), spec
    if path.suffix.lower() == ".json" and not wants_torch([spec]):
        return read_document(spec, settings), spec
    return analyse_inputs([spec], settings, [command, spec]), spec


def read_document(path: str, settings: PipelineSettings) -> dict[str, Any]:
    """A standardized document from a file, post-processed (a processed one as it is)."""
    raw = read_json(path)
    if not isinstance(raw, dict) or "results" not in raw or "schema_version" not in raw:
        raise InputError(
            path,
            "not a standardized-output document (expected a JSON object with "
            "schema_version and results, such as mlia-output.json)",
        )
    processed = postprocess(raw, settings, source=path)
    assert is_postprocessed(processed)
    return processed


def run_files(spec: str) -> list[Path]:
    """The files ``load_run(spec)`` reads, sorted: the document, or each input (a folder
    of inputs by the regular files directly in it; a torch trace with the statement
    sidecar beside it). Missing files are left to ``load_run`` to report."""
    if "," in spec:
        parts = [Path(part) for part in spec.split(",") if part]
    else:
        path = Path(spec)
        if path.is_dir():
            for candidate in (path / NESTED_OUTPUT, path / NESTED_OUTPUT.name):
                if candidate.is_file():
                    return [candidate]
        parts = [path]
    from perfline.core.backends.torch_profiler.sidecar import sidecar_name

    files: list[Path] = []
    for part in parts:
        if part.is_dir():
            files.extend(child for child in sorted(part.iterdir()) if child.is_file())
            continue
        files.append(part)
        sidecar = part.with_name(sidecar_name(part.name))  # a trace's statements
        if sidecar != part and sidecar.is_file():
            files.append(sidecar)
    return sorted(set(files))
