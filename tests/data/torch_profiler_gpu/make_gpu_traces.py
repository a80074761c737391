"""Make traces in the exact shape torch.profiler writes for CUDA, from real CPU traces.

No GPU was available to make real CUDA traces, so this script takes a real CPU trace of a
test model (``tests/data/torch_profiler/traces/``, torch 2.13) and adds, around the ops that
would run on a GPU, the events kineto writes for them, field for field as its source writes
them (pytorch/kineto, ``libkineto/src``):

* the launch call on the CPU thread, inside the op: ``"cat": "cuda_runtime"`` (ActivityType
  names, ``ActivityType.cpp``), ``pid`` = the process, ``tid`` = the thread
  (``RuntimeActivity::deviceId/resourceId`` in ``CuptiActivity.h``), ``args`` = ``"External
  id"`` (the linked CPU op's correlation id: ``ChromeTraceLogger::handleActivity`` in
  ``output_json.cpp``), then ``"cbid"`` and ``"correlation"``
  (``RuntimeActivity::metadataJson``); names ``cudaLaunchKernel`` (cbid 211),
  ``cudaMemcpyAsync`` (41), ``cudaMemsetAsync`` (51), ``cudaStreamSynchronize`` (131);
* the GPU activity: ``"cat": "kernel"`` / ``"gpu_memcpy"`` / ``"gpu_memset"``, ``pid`` = the
  device, ``tid`` = the stream (``GpuActivity::deviceId/resourceId``), ``args`` = ``"External
  id"``, then for a kernel ``queued``, ``device``, ``context``, ``stream``, ``correlation``,
  ``registers per thread``, ``shared memory``, ``blocks per SM``, ``warps per SM``, ``grid``,
  ``block``, ``est. achieved occupancy %`` (``GpuActivity<CUpti_ActivityKernel4>::
  metadataJson``), for a copy or set ``device``, ``context``, ``stream``, ``correlation``,
  ``bytes``, ``memory bandwidth (GB/s)``; names ``Memcpy DtoD (Device -> Device)`` and
  ``Memset (Device)`` (``memcpyName``, ``GpuActivity<CUpti_ActivityMemset>::name``);
* the ``ac2g`` flow between them, ``id`` = the correlation: ``s`` at the launch's start on its
  thread, ``f`` with ``"bp": "e"`` at the activity's start on (device, stream)
  (``handleGenericLink`` / ``handleLink``; ``CuptiActivity::flowType`` = ``kLinkAsyncCpuGpu``);
* ``deviceProperties`` items with kineto's keys (``createDevicePropertiesJson`` in
  ``DeviceProperties.cpp``), process and thread metadata for the device and stream
  (``handleDeviceInfo``, ``handleResourceInfo``; ``"stream {} {}"`` resource names);
* the backward pass on its own thread, as CUDA runs it (autograd's device thread: the
  backward ops, their ``fwdbwd`` flow ends and their allocations move to a second tid, with
  no Python frame above them), and allocations inside ops that launch work made device
  allocations (``"Device Type": 1``).

What is invented (no GPU ran): which ops launch what (ops that compute launch one kernel;
``aten::copy_`` a device-to-device copy, ``aten::zero_`` a memset, ``aten::_local_scalar_dense``
a device-to-host copy and a synchronisation; views, ``empty`` and autograd bookkeeping launch
nothing), the kernel names (``perfline_shaped::<op>_kernel``), durations (from the op's CPU
duration) and launch parameters, and the device's name and properties.

Variants: ``<model>.cuda.pt.trace.json`` as described; ``custom_function.cuda_correlation_only``
without ``External id`` on GPU activities (joined through the launch's correlation);
``custom_function.cuda_flows_only`` without ``External id`` and ``correlation`` on activities and
launches (joined through the ``ac2g`` flows only); ``transformer_block.cuda_python_export``
in the compact one-event-per-line layout of ``torch/profiler/_chrome_trace_export.py``.

Beside each ``<model>.cuda.pt.trace.json``, the CPU trace's statement sidecar re-keyed to it
(same ops, same ``External id``: statement level on a GPU-shaped trace).

Run: ``python3 tests/data/torch_profiler_gpu/make_gpu_traces.py`` (standard library only;
deterministic: the same inputs give the same files).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CPU_TRACES = HERE.parent / "torch_profiler" / "traces"
DEVICE = 0
STREAM = 7
CONTEXT = 1
LAUNCH_CBID = 211
MEMCPY_CBID = 41
MEMSET_CBID = 51
SYNC_CBID = 131
NO_WORK = frozenset(
    {
        "aten::view",
        "aten::_unsafe_view",
        "aten::t",
        "aten::transpose",
        "aten::as_strided",
        "aten::expand",
        "aten::detach",
        "detach",
        "aten::empty",
        "aten::empty_strided",
        "aten::empty_like",
        "aten::resolve_conj",
        "aten::resolve_neg",
        "aten::reshape",
        "aten::permute",
        "aten::slice",
        "aten::select",
        "aten::unsqueeze",
        "aten::squeeze",
        "aten::alias",
        "aten::lift_fresh",
        "aten::flatten",
        "aten::split",
        "aten::chunk",
        "aten::unbind",
        "aten::narrow",
        "aten::item",
        "aten::to",
        "aten::_to_copy",
        "aten::numpy_T",
        "aten::result_type",
    }
)
DEVICE_PROPERTIES = [
    {
        "id": DEVICE,
        "name": "GPU-shaped test device (no GPU ran)",
        "totalGlobalMem": 85_000_000_000,
        "computeMajor": 9,
        "computeMinor": 0,
        "maxThreadsPerBlock": 1024,
        "maxThreadsPerMultiprocessor": 2048,
        "regsPerBlock": 65536,
        "warpSize": 32,
        "sharedMemPerBlock": 49152,
        "numSms": 132,
        "regsPerMultiprocessor": 65536,
        "sharedMemPerBlockOptin": 232448,
        "sharedMemPerMultiprocessor": 233472,
    }
]


def _nesting(ops: list[dict[str, Any]]) -> tuple[set[int], set[int]]:
    """(ops with a child op, ops inside a backward node) by position in ``ops``."""
    parents: set[int] = set()
    in_backward: set[int] = set()
    order = sorted(range(len(ops)), key=lambda i: (ops[i]["tid"], ops[i]["ts"], -ops[i]["dur"]))
    stack: list[int] = []
    tid = None
    for index in order:
        event = ops[index]
        if event["tid"] != tid:
            stack, tid = [], event["tid"]
        while stack and ops[stack[-1]]["ts"] + ops[stack[-1]]["dur"] <= event["ts"]:
            stack.pop()
        if stack:
            parents.add(stack[-1])
            if stack[-1] in in_backward:
                in_backward.add(index)
        if (event.get("args") or {}).get("Fwd thread id", 0) > 0:
            in_backward.add(index)
        stack.append(index)
    return parents, in_backward


def _kernel_args(external: int | None, correlation: int, dur: float) -> dict[str, Any]:
    grid = max(1, int(dur * 8))
    args: dict[str, Any] = {} if external is None else {"External id": external}
    args.update(
        {
            "queued": 0,
            "device": DEVICE,
            "context": CONTEXT,
            "stream": STREAM,
            "correlation": correlation,
            "registers per thread": 32,
            "shared memory": 0,
            "blocks per SM": round(grid / 132, 6),
            "warps per SM": round(grid / 132 * 4, 6),
            "grid": [grid, 1, 1],
            "block": [128, 1, 1],
            "est. achieved occupancy %": min(100, grid),
        }
    )
    return args


def _copy_args(external: int | None, correlation: int, nbytes: int, dur: float) -> dict[str, Any]:
    args: dict[str, Any] = {} if external is None else {"External id": external}
    args.update(
        {
            "device": DEVICE,
            "context": CONTEXT,
            "stream": STREAM,
            "correlation": correlation,
            "bytes": nbytes,
            "memory bandwidth (GB/s)": round(nbytes / (dur * 1000), 6),
        }
    )
    return args


def _round(value: float) -> float:
    return round(value, 3)


def shape_for_cuda(trace: dict[str, Any], variant: str) -> dict[str, Any]:
    """A copy of the CPU ``trace`` with the CUDA events added (module docstring)."""
    events = trace["traceEvents"]
    ops = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    main_tid = max(
        {e["tid"] for e in ops}, key=lambda t: sum(1 for e in ops if e["tid"] == t)
    )
    pid = next(e["pid"] for e in ops)
    backward_tid = main_tid + 1
    parents, in_backward = _nesting(ops)
    added: list[dict[str, Any]] = []
    correlation = 0
    stream_free = 0.0
    launching: list[tuple[float, float, int]] = []  # (start, end, tid) of ops that launch
    for index, event in sorted(enumerate(ops), key=lambda item: item[1]["ts"]):
        name = event["name"]
        if index in parents or name in NO_WORK or name.startswith("autograd::"):
            continue
        if not name.startswith("aten::"):
            continue
        correlation += 1
        external = (event.get("args") or {}).get("External id")
        tid = backward_tid if index in in_backward else event["tid"]
        launch_ts = _round(event["ts"] + event["dur"] * 0.4)
        launch_dur = _round(min(4.0, event["dur"] * 0.3))
        gpu_dur = _round(event["dur"] * 0.5 + 2.0)
        gpu_ts = _round(max(launch_ts + launch_dur + 5.0, stream_free + 1.0))
        stream_free = gpu_ts + gpu_dur
        launching.append((event["ts"], event["ts"] + event["dur"], tid))
        if name == "aten::copy_":
            runtime, cbid = "cudaMemcpyAsync", MEMCPY_CBID
            activity = ("gpu_memcpy", "Memcpy DtoD (Device -> Device)")
        elif name == "aten::_local_scalar_dense":
            runtime, cbid = "cudaMemcpyAsync", MEMCPY_CBID
            activity = ("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)")
        elif name == "aten::zero_":
            runtime, cbid = "cudaMemsetAsync", MEMSET_CBID
            activity = ("gpu_memset", "Memset (Device)")
        else:
            runtime, cbid = "cudaLaunchKernel", LAUNCH_CBID
            bare = name.removeprefix("aten::").strip("_")
            activity = ("kernel", f"void perfline_shaped::{bare}_kernel<float>(float*, long)")
        runtime_args: dict[str, Any] = {}
        if external is not None:
            runtime_args["External id"] = external
        runtime_args["cbid"] = cbid
        if variant != "flows_only":
            runtime_args["correlation"] = correlation
        added.append(
            {
                "ph": "X",
                "cat": "cuda_runtime",
                "name": runtime,
                "pid": pid,
                "tid": tid,
                "ts": launch_ts,
                "dur": launch_dur,
                "args": runtime_args,
            }
        )
        added.append(
            {
                "ph": "s",
                "id": correlation,
                "pid": pid,
                "tid": tid,
                "ts": launch_ts,
                "cat": "ac2g",
                "name": "ac2g",
            }
        )
        linked = external if variant == "full" else None
        category, activity_name = activity
        if category == "kernel":
            args = _kernel_args(linked, correlation, gpu_dur)
        else:
            args = _copy_args(linked, correlation, 4096, gpu_dur)
        if variant == "flows_only":
            args.pop("correlation")
        added.append(
            {
                "ph": "X",
                "cat": category,
                "name": activity_name,
                "pid": DEVICE,
                "tid": STREAM,
                "ts": gpu_ts,
                "dur": gpu_dur,
                "args": args,
            }
        )
        added.append(
            {
                "ph": "f",
                "id": correlation,
                "pid": DEVICE,
                "tid": STREAM,
                "ts": gpu_ts,
                "cat": "ac2g",
                "name": "ac2g",
                "bp": "e",
            }
        )
        if name == "aten::_local_scalar_dense":
            added.append(
                {
                    "ph": "X",
                    "cat": "cuda_runtime",
                    "name": "cudaStreamSynchronize",
                    "pid": pid,
                    "tid": tid,
                    "ts": _round(launch_ts + launch_dur + 0.5),
                    "dur": _round(max(0.5, stream_free - launch_ts - launch_dur - 0.5)),
                    "args": {"cbid": SYNC_CBID, "correlation": correlation + 100000},
                }
            )
    backward_spans = [
        (e["ts"], e["ts"] + e["dur"]) for i, e in enumerate(ops) if i in in_backward
    ]
    backward_ops = {id(ops[i]) for i in in_backward}
    shaped: list[dict[str, Any]] = []
    for original in events:
        event = json.loads(json.dumps(original))
        if id(original) in backward_ops:
            event["tid"] = backward_tid
        elif event.get("cat") == "fwdbwd" and event.get("ph") == "f":
            event["tid"] = backward_tid
        if event.get("name") == "[memory]" and event.get("tid") == main_tid:
            ts = event["ts"]
            if any(start <= ts < end for start, end in backward_spans):
                event["tid"] = backward_tid
            if any(start <= ts < end for start, end, _ in launching):
                event["args"]["Device Type"] = 1
                event["args"]["Device Id"] = DEVICE
        shaped.append(event)
    metadata = [
        _meta("process_name", pid=DEVICE, tid=0, key="name", value=f"GPU {DEVICE}"),
        _meta("process_labels", pid=DEVICE, tid=0, key="labels", value=f"GPU {DEVICE}"),
        _meta("process_sort_index", pid=DEVICE, tid=0, key="sort_index", value=5000000),
        _meta("thread_name", pid=DEVICE, tid=STREAM, key="name", value=f"stream {STREAM} "),
        _meta("thread_sort_index", pid=DEVICE, tid=STREAM, key="sort_index", value=STREAM),
        _meta("thread_name", pid=pid, tid=backward_tid, key="name",
              value=f"thread {backward_tid} (pt_autograd_0)"),
        _meta("thread_sort_index", pid=pid, tid=backward_tid, key="sort_index",
              value=backward_tid),
    ]
    first_meta = next(i for i, e in enumerate(shaped) if e.get("ph") != "M")
    shaped[first_meta:first_meta] = [dict(m, ts=shaped[0].get("ts", 0)) for m in metadata]
    end = next(i for i, e in enumerate(shaped) if e.get("name") == "Record Window End")
    shaped[end:end] = added
    out = {k: v for k, v in trace.items() if k != "traceEvents"}
    out["deviceProperties"] = DEVICE_PROPERTIES
    out["traceEvents"] = shaped
    return out


def _meta(name: str, *, pid: int, tid: int, key: str, value: Any) -> dict[str, Any]:
    return {"ph": "M", "name": name, "pid": pid, "tid": tid, "args": {key: value}}


def write_kineto(trace: dict[str, Any], path: Path) -> None:
    """kineto's layout: header keys, one indented object per event, then ``traceName``."""
    lines = ["{"]
    for key, value in trace.items():
        if key in ("traceEvents", "traceName"):
            continue
        lines.append(f"  {json.dumps(key)}: {json.dumps(value)},")
    lines.append('  "traceEvents": [')
    lines.append(",\n".join("  " + json.dumps(e) for e in trace["traceEvents"]))
    lines.append("  ],")
    lines.append(f'  "traceName": {json.dumps(path.name)}')
    lines.append("}")
    path.write_text("\n".join(lines) + "\n")


def write_python_export(trace: dict[str, Any], path: Path) -> None:
    """torch's Python exporter's layout: compact events, one per line."""
    parts = ["{\n", '"schemaVersion": 1,\n']
    parts.append(f'"deviceProperties": {json.dumps(trace["deviceProperties"])},\n')
    parts.append('"displayTimeUnit": "ms",\n')
    parts.append(f'"baseTimeNanoseconds": {trace["baseTimeNanoseconds"]},\n')
    parts.append('"traceEvents": [\n')
    parts.append(
        ",\n".join(json.dumps(e, separators=(",", ":")) for e in trace["traceEvents"])
    )
    parts.append(f'\n],\n"traceName": {json.dumps(path.name)}\n}}\n')
    path.write_text("".join(parts))


def write_sidecar(source: Path, target: Path) -> None:
    """The CPU trace's statement sidecar, re-keyed to the GPU-shaped trace (its ops keep
    their ``External id``, so every entry still names its op)."""
    sidecar = json.loads(Path(f"{source}.perfline.json").read_text())
    data = target.read_bytes()
    sidecar["trace"] = {
        "file": target.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
    }
    Path(f"{target}.perfline.json").write_text(json.dumps(sidecar, separators=(",", ":")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu-traces", type=Path, default=CPU_TRACES)
    parser.add_argument("--out", type=Path, default=HERE)
    arguments = parser.parse_args()
    made = [
        ("train_step", "full", "cuda", write_kineto),
        ("custom_function", "full", "cuda", write_kineto),
        ("custom_function", "correlation_only", "cuda_correlation_only", write_kineto),
        ("custom_function", "flows_only", "cuda_flows_only", write_kineto),
        ("transformer_block", "full", "cuda_python_export", write_python_export),
    ]
    for model, variant, suffix, writer in made:
        source = arguments.cpu_traces / f"{model}.pt.trace.json"
        trace = json.loads(source.read_text())
        target = arguments.out / f"{model}.{suffix}.pt.trace.json"
        writer(shape_for_cuda(trace, variant), target)
        if suffix == "cuda":
            write_sidecar(source, target)
        shaped = json.loads(target.read_text())
        kinds = sorted({e.get("cat", "") for e in shaped["traceEvents"]} - {""})
        print(f"{target.name}: {target.stat().st_size:,} bytes, categories {', '.join(kinds)}")


if __name__ == "__main__":
    main()
