"""``perfline.toml`` settings of the ONNX Runtime and static-cost backends (pure).

::

    [onnxruntime]
    warmup_runs = 1                   # runs left out at the start of each profile (default 1)

    [static]
    discover = true                   # every .onnx/.pt2/.tosa becomes a static-cost job (default
                                      # false: a workspace full of models starts no job)
    [static.target]                   # optional roofline target; no built-in numbers
    name = "my-npu"
    macs_per_second = 2.0e12
    bytes_per_second = 1.6e10

``parse_backend_settings`` validates the two tables and reports each problem with a line through
the callbacks of the ``perfline.toml`` parser; ``RooflineTarget`` is the ``[static.target]`` value
(time of an operator = max(MACs / macs_per_second, bytes / bytes_per_second));
``job_defaults`` gives the options a job of a backend starts from (a job's own ``options`` win);
``discovery_enabled`` says whether a job type's convention jobs are wanted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from perfline.core.finite_numbers import finite_float, number_problem


@dataclass(frozen=True)
class RooflineTarget:
    """A target's peak rates (either may be absent, not both) and its name."""

    macs_per_second: float | None = None
    bytes_per_second: float | None = None
    name: str = "roofline target"

    def time_ms(self, macs: int, total_bytes: float) -> tuple[float, str]:
        """The roofline time of one operator and the bound that decided it."""
        compute = macs / self.macs_per_second if self.macs_per_second else 0.0
        memory = total_bytes / self.bytes_per_second if self.bytes_per_second else 0.0
        if self.macs_per_second and compute >= memory:
            return compute * 1000.0, "compute"
        return memory * 1000.0, "memory"


TABLES = ("onnxruntime", "static")
STATIC = "static"
ONNXRUNTIME = "onnxruntime"


@dataclass(frozen=True)
class BackendSettings:
    """The ``[onnxruntime]`` and ``[static]`` tables (defaults when absent)."""

    warmup_runs: int = 1
    static_discover: bool = False
    static_target: RooflineTarget | None = None
    present: tuple[str, ...] = field(default_factory=tuple)


Fail = Callable[[int, str, str], None]
LineOf = Callable[[str, str | None], int]


def parse_backend_settings(data: Mapping[str, Any], fail: Fail, line_of: LineOf) -> BackendSettings:
    """The settings of ``data`` (the whole parsed file); problems go to ``fail``."""
    warmup = 1
    ort = data.get(ONNXRUNTIME, {})
    if not isinstance(ort, Mapping):
        fail(line_of(ONNXRUNTIME, None), ONNXRUNTIME, "expected a table")
        ort = {}
    for key in ort:
        if key != "warmup_runs":
            fail(
                line_of(ONNXRUNTIME, key),
                f"{ONNXRUNTIME}.{key}",
                f"unknown key {key!r}; expected warmup_runs",
            )
    if "warmup_runs" in ort:
        value = ort["warmup_runs"]
        if type(value) is not int or value < 0:
            fail(
                line_of(ONNXRUNTIME, "warmup_runs"),
                "onnxruntime.warmup_runs",
                "expected an integer >= 0",
            )
        else:
            warmup = value
    static = data.get(STATIC, {})
    if not isinstance(static, Mapping):
        fail(line_of(STATIC, None), STATIC, "expected a table")
        static = {}
    for key in static:
        if key not in ("discover", "target"):
            fail(
                line_of(STATIC, key),
                f"static.{key}",
                f"unknown key {key!r}; expected discover, target",
            )
    discover = static.get("discover", False)
    if not isinstance(discover, bool):
        fail(line_of(STATIC, "discover"), "static.discover", "expected a boolean")
        discover = False
    target = _target(static.get("target"), fail, line_of) if "target" in static else None
    return BackendSettings(warmup, discover, target, tuple(t for t in TABLES if t in data))


def _target(value: object, fail: Fail, line_of: LineOf) -> RooflineTarget | None:
    where = "static.target"
    if not isinstance(value, Mapping):
        fail(line_of(where, None), where, "expected a table")
        return None
    allowed = ("name", "macs_per_second", "bytes_per_second")
    for key in value:
        if key not in allowed:
            fail(
                line_of(where, key),
                f"{where}.{key}",
                f"unknown key {key!r}; expected {', '.join(allowed)}",
            )
    rates: dict[str, float | None] = {}
    for key in ("macs_per_second", "bytes_per_second"):
        rate = value.get(key)
        problem = number_problem(rate, positive=True) if rate is not None else None
        if problem is not None:
            fail(line_of(where, key), f"{where}.{key}", problem)
        rates[key] = finite_float(rate) if problem is None else None
    if rates["macs_per_second"] is None and rates["bytes_per_second"] is None:
        fail(line_of(where, None), where, "expected macs_per_second and/or bytes_per_second")
        return None
    name = value.get("name", "roofline target")
    if not isinstance(name, str) or not name:
        fail(line_of(where, "name"), f"{where}.name", "expected a non-empty string")
        name = "roofline target"
    return RooflineTarget(rates["macs_per_second"], rates["bytes_per_second"], name)


def job_defaults(settings: BackendSettings, backend: str) -> dict[str, Any]:
    """The options a job of ``backend`` starts from."""
    if backend == ONNXRUNTIME:
        return {"warmup_runs": settings.warmup_runs}
    if backend == STATIC and settings.static_target is not None:
        target = settings.static_target
        options: dict[str, Any] = {"target_name": target.name}
        if target.macs_per_second is not None:
            options["macs_per_second"] = target.macs_per_second
        if target.bytes_per_second is not None:
            options["bytes_per_second"] = target.bytes_per_second
        return options
    return {}


def discovery_enabled(settings: BackendSettings, backend: str) -> bool:
    """Whether convention jobs of ``backend`` are wanted (static ones only when opted in)."""
    return backend != STATIC or settings.static_discover
