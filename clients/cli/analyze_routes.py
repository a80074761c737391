"""Every route of ``perfline analyze``, with the inputs it takes, in one table.

``analyze`` and ``compare`` say what to do with inputs no route takes from here: the routes
that take a file of that kind (``model.onnx`` alone: ONNX Runtime profiles or ``--static``),
or every route when none does, each with its command line. The dispatch itself stays in
``analyze.py``; a new route (another backend) is listed by adding one ``Route`` to
``ROUTES``. Cost: string formatting only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath


@dataclass(frozen=True)
class Route:
    """One way ``perfline analyze`` turns files into a result."""

    #: What the route reads, in words ("ONNX Runtime profiles").
    name: str
    #: Endings of the file names it takes, lower case (".onnx", "_debug_database.dat").
    takes: tuple[str, ...]
    #: Its ``perfline analyze`` command line; ``{model}`` stands for the model file.
    usage: str
    #: One side of ``perfline compare`` with these inputs (joined by commas; ``{model}`` as
    #: in ``usage``), or None when the route's output must be written first
    #: (``analyze ... --output-dir``).
    compare_side: str | None
    #: Suffixes of the model file ``{model}`` stands for; the first one makes the example
    #: name (``model.onnx``) unless the input in question is such a model.
    models: tuple[str, ...] = ()

    def command_line(self, name: str) -> str:
        """``usage`` with ``name`` as the model when it is one, else the example name."""
        return self.usage.format(model=self._model(name))

    def compare_line(self, name: str) -> str | None:
        if self.compare_side is None:
            return None
        return self.compare_side.format(model=self._model(name))

    def _model(self, name: str) -> str:
        lowered = name.lower()
        if any(lowered.endswith(suffix) for suffix in self.models):
            return name
        return f"model{self.models[0]}" if self.models else "model"


ROUTES: tuple[Route, ...] = (
    Route(
        "NX estimator outputs",
        (
            ".vgf",
            ".tosa",
            "_performance_database.dat",
            "_debug_database.dat",
            "_network_performance_summary.json",
        ),
        "perfline analyze {model} run/  (the estimator's *_performance_database.dat, "
        "*_debug_database.dat, *_network_performance_summary.json, or their folder)",
        "{model},run/",
        (".vgf", ".tosa"),
    ),
    Route(
        "an NX estimator run",
        (".vgf", ".tosa"),
        "perfline analyze {model} --estimator PATH",
        None,
        (".vgf", ".tosa"),
    ),
    Route(
        "ExecuTorch ETRecord and ETDump",
        (".etrecord", ".bin", ".etdump", ".etdp"),
        "perfline analyze {model} run.etdump",
        "{model},run.etdump",
        (".etrecord", ".bin"),
    ),
    Route(
        "an NX structured capture",
        (".vgf",),
        "perfline analyze [{model}] --profiling-data CAPTURE_DIR",
        None,
        (".vgf",),
    ),
    Route(
        "ONNX Runtime profiles",
        (".onnx", ".json"),
        "perfline analyze {model} profile.json...",
        "{model},profile.json",
        (".onnx",),
    ),
    Route(
        "torch.profiler traces",
        (".pt.trace.json", ".pt.trace.json.gz", ".json", ".json.gz"),
        "perfline analyze run.pt.trace.json[.gz]...  (torch.profiler with with_stack=True; "
        "a sidecar from perfline profile beside it gives statement level)",
        "run.pt.trace.json",
    ),
    Route(
        "static cost (no run)",
        (".onnx", ".pt2", ".tosa"),
        "perfline analyze {model} --static  (an ONNX, PT2 or TOSA model)",
        None,
        (".onnx", ".pt2", ".tosa"),
    ),
)


def routes_taking(name: str, routes: Sequence[Route] = ROUTES) -> tuple[Route, ...]:
    """The routes that take a file of this name (by its ending, any case)."""
    lowered = PurePath(name).name.lower()
    return tuple(route for route in routes if any(lowered.endswith(t) for t in route.takes))


def unrecognized_message(
    name: str, *, command: str = "analyze", routes: Sequence[Route] = ROUTES
) -> str:
    """What to do with an input that no route takes as it was given: the routes that take a
    file of its kind, each with its command line (every route when none takes it)."""
    taking = routes_taking(name, routes)
    suffix = PurePath(name).suffix.lower()
    if taking:
        head = f"unrecognized input: the routes that take {suffix or 'it'} are"
    else:
        head = "unrecognized input: the routes of perfline analyze are"
    listed = taking or tuple(routes)
    if command == "compare":
        parts = [_compare_part(route, name) for route in listed]
        return (
            f"{head} {'; '.join(parts)} (BASE and NEW are documents, folders holding "
            "mlia-output/mlia-output.json, or analyze's inputs joined by commas)"
        )
    lines = (f"{route.name}: {route.command_line(name)}" for route in listed)
    return f"{head} {'; '.join(lines)}"


def _compare_part(route: Route, name: str) -> str:
    side = route.compare_line(name)
    if side is not None:
        return f"{route.name}: perfline compare {side} NEW"
    first = route.command_line(name).split("  (")[0]
    return f"{route.name}: {first} --output-dir base, then perfline compare base NEW"
