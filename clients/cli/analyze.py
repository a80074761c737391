"""``perfline analyze``: build a standardized result from a model and backend outputs.

Inputs are dispatched by kind:

* measured profiling (``.etrecord``/``.etdump`` inputs or ``--profiling-data``)
  goes to ``analyze_measured``;
* a model (``.vgf``, ``.tosa``) and/or NX estimator outputs
  (``*_performance_database.dat``, ``*_debug_database.dat``,
  ``*_network_performance_summary.json`` or a folder holding them) go to the
  NX estimator route; with ``--estimator PATH`` the estimator is run on the model;
* anything else is an error naming the input.

The raw document is post-processed like ``perfline report`` does and written to
``<output-dir>/mlia-output/mlia-output.json`` (temporary file renamed over it when
complete; nothing else there is touched); estimator runs also write
``<output-dir>/nx_performance_statistics.json`` (and the converter's and estimator's
outputs); ``--html OUT.html`` also writes the HTML report. Each file written is announced
on stderr (``wrote PATH``).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from perfline.clients.cli.announce import wrote
from perfline.clients.cli.common import (
    collapse_options,
    find_config,
    float_sums_option,
    guarded,
    load_config,
    pipeline_settings,
    text_options,
)
from perfline.clients.cli.output import print_text, retain, write_output
from perfline.core.errors import InputError, Problem
from perfline.core.pipeline import PipelineSettings, postprocess

ESTIMATOR_ENV = "PERFLINE_NX_ESTIMATOR"
ESTIMATOR = "estimator"
MEASURED = "measured"


def require_existing(paths: Sequence[str]) -> None:
    """A path that is not there is reported first, before what its name suggests (a
    misspelled ``run.etdmp`` is "no such file", not an ETRecord without an ETDump), with
    the closest name in its folder when there is one."""
    for item in paths:
        path = Path(item)
        if path.exists():
            continue
        folder = path.parent if str(path.parent) else Path(".")
        try:
            names = [entry.name for entry in folder.iterdir()] if folder.is_dir() else []
        except OSError:
            names = []
        close = difflib.get_close_matches(path.name, names, n=1, cutoff=0.75)
        hint = f" (did you mean {str(folder / close[0])!r}?)" if close else ""
        raise InputError(item, f"no such file or folder{hint}")


def input_kind(
    inputs: Sequence[str], profiling_data: Sequence[str], *, command: str = "analyze"
) -> str:
    """Which backend route the inputs belong to; unrecognized inputs raise ``InputError``
    naming the routes that take a file of their kind (``analyze_routes``; ``command``:
    ``compare`` writes them as its sides)."""
    from perfline.clients.cli.analyze_measured import wants_measured

    require_existing([*inputs, *profiling_data])
    if wants_measured(inputs, profiling_data):
        return MEASURED
    if not inputs:
        raise InputError(
            "perfline analyze",
            Problem("arguments", "expected a model and/or backend output files"),
        )
    from perfline.server.ingest.estimator import is_estimator_output, is_model

    for item in inputs:
        path = Path(item)
        if not path.exists():
            raise InputError(item, "no such file or folder")
        if not (is_model(path) or is_estimator_output(path)):
            from perfline.clients.cli.analyze_onnxruntime import compressed_profile_error
            from perfline.clients.cli.analyze_routes import unrecognized_message

            compressed = compressed_profile_error(inputs)
            if compressed is not None:
                raise compressed
            raise InputError(item, unrecognized_message(item, command=command))
    return ESTIMATOR


def run_estimator_route(
    inputs: Sequence[str],
    *,
    output_dir: Path,
    estimator: str | None,
    system_config: str,
    compiler_config: str,
    performance: bool,
    compatibility: bool,
    settings: PipelineSettings,
    cli_arguments: Sequence[str],
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Build, post-process and return the NX estimator document and statistics."""
    from perfline.server.ingest.estimator import (
        VGF_SUFFIXES,
        analyze_outputs,
        classify_inputs,
        convert_tosa,
        run_estimator,
    )

    found = classify_inputs([Path(item) for item in inputs])
    model = found.model
    converted = False
    source_model: Path | None = None
    if model is not None and not model.name.lower().endswith(VGF_SUFFIXES):
        source_model = model
        model = convert_tosa(model, output_dir)
        wrote(model, f"the VGF of {source_model}")
        converted = True
    outputs = found.outputs
    if estimator is not None:
        if model is None:
            raise InputError(
                "perfline analyze", Problem("--estimator", "needs a model (.vgf or .tosa)")
            )
        if outputs:
            raise InputError(
                "perfline analyze",
                Problem("--estimator", "give either estimator output files or --estimator"),
            )
        outputs = run_estimator(
            model,
            output_dir,
            estimator=Path(estimator),
            system_config=system_config,
            compiler_config=compiler_config,
        )
        for folder in dict.fromkeys(output.performance.parent for output in outputs):
            wrote(f"{folder}/", "the estimator's outputs")
    analysis = analyze_outputs(
        model,
        outputs,
        performance=performance,
        compatibility=compatibility,
        system_config=system_config,
        compiler_config=compiler_config,
        source_model=source_model,
        converter_used=converted,
        cli_arguments=cli_arguments,
    )
    processed = postprocess(analysis.document, settings, source="NX estimator result")
    return processed, analysis.statistics


def _arguments(
    inputs: Sequence[str],
    estimator: str | None,
    system_config: str,
    compiler_config: str,
    compatibility: bool,
) -> list[str]:
    arguments = ["analyze", *inputs]
    if estimator is not None:
        arguments.append(f"--estimator={estimator}")
    if system_config != "default":
        arguments.append(f"--system-config={system_config}")
    if compiler_config != "default":
        arguments.append(f"--compiler-config={compiler_config}")
    if compatibility:
        arguments.append("--compatibility")
    return arguments


@click.command("analyze")
@click.argument("inputs", nargs=-1, metavar="[MODEL] [OUTPUTS...]")
@click.option(
    "--estimator",
    default=None,
    envvar=ESTIMATOR_ENV,
    metavar="PATH",
    help=f"Run this graph-compiler-performance-estimator on the model (also ${ESTIMATOR_ENV}).",
)
@click.option("--system-config", default="default", metavar="INI", help="Estimator system .ini.")
@click.option("--compiler-config", default="default", metavar="INI", help="Compiler .ini.")
@click.option("--performance", is_flag=True, help="Build the performance result (default).")
@click.option(
    "--compatibility", is_flag=True, help="Build the NX placement (compatibility) result."
)
@click.option(
    "--profiling-data",
    "profiling_data",
    multiple=True,
    metavar="PATH",
    help="Measured profiling: an ETDump, or a capture root or dispatch folder (repeatable).",
)
@click.option("--method", default=None, help="The ETRecord method to analyse.")
@click.option("--companion-model", default=None, metavar="MODEL.pte", help="The deployed .pte.")
@click.option(
    "--static", "static", is_flag=True, help="Static cost of one ONNX, PT2 or TOSA model."
)
@click.option(
    "--warmup-runs",
    type=click.IntRange(min=0),
    default=None,
    help="ONNX Runtime profiles: runs left out at the start of each (default 1).",
)
@click.option(
    "--optimized-model",
    default=None,
    metavar="MODEL.onnx",
    help="ONNX Runtime's saved optimised model (SessionOptions.optimized_model_filepath).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the processed document as JSON.")
@click.option(
    "--html",
    "html",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="OUT.html",
    help="Also write a self-contained HTML report (summary, annotated sources, chart, table).",
)
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Where OUTPUT_DIR/mlia-output/mlia-output.json (replaced atomically; nothing else "
    "in the folder is touched) and the estimator's outputs go (default: the current folder).",
)
@click.option(
    "--config",
    type=click.Path(dir_okay=False),
    default=None,
    help="perfline.toml whose [filtering] collapse rules and float_sums apply (default: the "
    "nearest perfline.toml from the first input's folder upwards).",
)
@collapse_options
@float_sums_option
@text_options
@guarded
def command(
    inputs: tuple[str, ...],
    estimator: str | None,
    system_config: str,
    compiler_config: str,
    performance: bool,
    compatibility: bool,
    profiling_data: tuple[str, ...],
    method: str | None,
    companion_model: str | None,
    static: bool,
    warmup_runs: int | None,
    optimized_model: str | None,
    as_json: bool,
    html: str | None,
    output_dir: str | None,
    config: str | None,
    collapse: tuple[str, ...],
    no_default_collapse: bool,
    float_sums: str | None,
    limit: int | None,
    show_all: bool,
) -> None:
    """Analyse a model with its backend outputs and report the standardized result.

    \b
    perfline analyze model.vgf run/x_performance_database.dat run/x_debug_database.dat \\
        [run/x_network_performance_summary.json]
    perfline analyze model.vgf run/            (a folder holding the estimator outputs)
    perfline analyze model.vgf --estimator /opt/nx/graph-compiler-performance-estimator
    perfline analyze model.etrecord run.etdump (measured profiling)
    perfline analyze model.onnx profile.json... (ONNX Runtime profiles)
    perfline analyze run.pt.trace.json[.gz]... (torch.profiler traces)
    perfline analyze model.onnx|model.pt2|model.tosa --static (static cost)
    perfline analyze ... --html report.html    (also the HTML report)
    """
    first = next(iter((*inputs, *profiling_data)), None)
    settings = pipeline_settings(
        collapse, no_default_collapse, load_config(find_config(config, first)), float_sums
    )
    cli_arguments = _arguments(inputs, estimator, system_config, compiler_config, compatibility)
    folder = Path(output_dir or ".")
    from perfline.clients.cli.analyze_onnxruntime import reject_route_options, wants_onnxruntime

    ort = not static and wants_onnxruntime(inputs) and not profiling_data
    from perfline.clients.cli.analyze_torch import wants_torch

    torch_trace = not static and not ort and not profiling_data and wants_torch(inputs)
    reject_route_options(
        static=static,
        ort=ort,
        estimator=estimator,
        compatibility=compatibility,
        profiling_data=profiling_data,
        method=method,
        companion_model=companion_model,
        warmup_runs=warmup_runs,
        optimized_model=optimized_model,
    )
    statistics: dict[str, Any] | None = None
    if static:
        from perfline.clients.cli.analyze_static import run_static

        processed = run_static(
            inputs, settings=settings, cli_arguments=[*cli_arguments, "--static"]
        )
    elif torch_trace:
        from perfline.clients.cli.analyze_torch import run_torch

        for option, given in (
            ("--estimator", estimator is not None),
            ("--compatibility", compatibility),
            ("--method", method is not None),
            ("--companion-model", companion_model is not None),
        ):
            if given:
                raise InputError(
                    "perfline analyze", Problem(option, "does not apply to torch.profiler traces")
                )
        processed = run_torch(inputs, settings=settings, cli_arguments=cli_arguments)
    elif ort:
        from perfline.clients.cli.analyze_onnxruntime import run_onnxruntime

        processed = run_onnxruntime(
            inputs,
            warmup_runs=warmup_runs,
            optimized_model=optimized_model,
            settings=settings,
            cli_arguments=cli_arguments,
        )
    elif input_kind(inputs, profiling_data) == MEASURED:
        from perfline.clients.cli.analyze_measured import run_measured

        _reject_estimator_options(estimator=estimator, compatibility=compatibility)

        processed = run_measured(
            inputs,
            profiling_data=profiling_data,
            method=method,
            companion_model=companion_model,
            settings=settings,
            cli_arguments=cli_arguments,
        )
    else:
        processed, statistics = run_estimator_route(
            inputs,
            output_dir=folder,
            estimator=estimator,
            system_config=system_config,
            compiler_config=compiler_config,
            performance=performance or not compatibility,
            compatibility=compatibility,
            settings=settings,
            cli_arguments=cli_arguments,
        )
    if statistics is not None:
        from perfline.server.ingest.estimator import write_statistics

        wrote(write_statistics(folder, statistics))
    retain(processed)  # freed by the end of the process, not object by object
    write_output(processed, output_dir, echo=as_json)
    if html is not None:
        from perfline.clients.cli.html_output import write_html_report

        wrote(write_html_report(processed, html, document=first or ".", config=config))
    if not as_json:
        print_text(processed, float_sums=settings.float_sums, limit=None if show_all else limit)


def _reject_estimator_options(*, estimator: str | None, compatibility: bool) -> None:
    """Measured inputs are not estimated: the estimator-only options make no sense with them."""
    for given, option in (
        (estimator is not None, "--estimator"),
        (compatibility, "--compatibility"),
    ):
        if given:
            raise InputError(
                "perfline analyze",
                Problem(
                    option,
                    "applies to NX estimator runs, not to measured inputs "
                    "(.etrecord/.etdump or --profiling-data)",
                ),
            )
