"""What ran, in words: ``ExecuTorch CPU kernels (no delegate), measured, 10 runs``.

The target and backend lines of hovers, breakdowns and the status bar. A document's
``target``/``backends`` ids describe the reporting format more than the run (a measured
ExecuTorch run on CPU kernels arrives as target type ``neural-technology`` and backend
``neural-technology-profiling-data``); those ids are never shown. Instead, from what the
document holds:

* the runtime: a backend configuration's ``runtime.name`` (and ``runtime.version``), else
  ExecuTorch when the inputs are an ETRecord/ETDump pair or a component's family is
  ``executorch``, else the backend's name;
* what executed: ``runtime.kernels`` (e.g. ``portable`` -> "portable CPU kernels") when the
  backend states it; else the delegates seen in the result (``backend_operator`` entities
  with a ``backend`` attribute: "XNNPACK delegate"); else "CPU kernels (no delegate)" for
  ExecuTorch;
* how: the result's mode (measured, estimated...) and the run count
  (``configuration.executions``).

Backends that know more (the kernel library, the runtime version) should state it in
``configuration.runtime = {"name", "version", "kernels", "delegates"}``. Pure; linear in
the result's entities once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_DELEGATE_NAMES = {
    "XnnpackBackend": "XNNPACK delegate",
    "VgfBackend": "VGF delegate",
    "CoreMLBackend": "Core ML delegate",
    "QnnBackend": "QNN delegate",
    "VulkanBackend": "Vulkan delegate",
    "EthosUBackend": "Ethos-U delegate",
}
_PRODUCERS = {
    "nx-performance-estimator": "NX performance estimator",
}


def describe_run(document: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    """One line saying what ran and how, from the document and one of its results."""
    backend = _backend(document, result)
    configuration = backend.get("configuration") if isinstance(backend, Mapping) else None
    config: Mapping[str, Any] = configuration if isinstance(configuration, Mapping) else {}
    stated = config.get("runtime")
    runtime: Mapping[str, Any] = stated if isinstance(stated, Mapping) else {}
    name = _runtime_name(document, backend, config, runtime, result)
    version = runtime.get("version")
    head = f"{name} {version}" if isinstance(version, str | int | float) and version else name
    parts = [head]
    executed = _executed(runtime, result, executorch=name == "ExecuTorch")
    if executed:
        parts[0] = f"{head} {executed}"
    mode = result.get("mode")
    if isinstance(mode, str) and mode:
        parts.append(mode)
    runs = config.get("executions")
    if isinstance(runs, int) and not isinstance(runs, bool) and runs > 0:
        parts.append(f"{runs} run" + ("" if runs == 1 else "s"))
    return ", ".join(parts)


def _backend(document: Mapping[str, Any], result: Mapping[str, Any]) -> Mapping[str, Any]:
    backends = document.get("backends")
    listed = [b for b in backends if isinstance(b, Mapping)] if isinstance(backends, list) else []
    producer = result.get("producer")
    for backend in listed:
        if backend.get("id") == producer:
            return backend
    return listed[0] if listed else {}


def _runtime_name(
    document: Mapping[str, Any],
    backend: Mapping[str, Any],
    config: Mapping[str, Any],
    runtime: Mapping[str, Any],
    result: Mapping[str, Any],
) -> str:
    stated = runtime.get("name")
    if isinstance(stated, str) and stated:
        return stated
    inputs = config.get("inputs")
    if isinstance(inputs, Mapping) and ("etrecord" in inputs or "etdump" in inputs):
        return "ExecuTorch"
    target = document.get("target")
    components = target.get("components") if isinstance(target, Mapping) else None
    for component in components if isinstance(components, list) else ():
        if isinstance(component, Mapping) and component.get("family") == "executorch":
            return "ExecuTorch"
    producer = str(result.get("producer", ""))
    if producer in _PRODUCERS:
        return _PRODUCERS[producer]
    name = backend.get("name")
    return name if isinstance(name, str) and name else producer or "unknown producer"


def _executed(runtime: Mapping[str, Any], result: Mapping[str, Any], *, executorch: bool) -> str:
    kernels = runtime.get("kernels")
    stated = runtime.get("delegates")
    delegates = [str(d) for d in stated] if isinstance(stated, list) else _delegates(result)
    words = [_DELEGATE_NAMES.get(d, f"{d} delegate") for d in delegates]
    if isinstance(kernels, str) and kernels:
        return ", ".join([f"{kernels} CPU kernels", *words])
    if words:
        return ", ".join(words)
    return "CPU kernels (no delegate)" if executorch else ""


def _delegates(result: Mapping[str, Any]) -> Sequence[str]:
    found: dict[str, None] = {}
    for entity in result.get("entities") or ():
        if isinstance(entity, Mapping) and entity.get("kind") == "backend_operator":
            attributes = entity.get("attributes")
            backend = attributes.get("backend") if isinstance(attributes, Mapping) else None
            if isinstance(backend, str) and backend:
                found[backend] = None
    return list(found)
