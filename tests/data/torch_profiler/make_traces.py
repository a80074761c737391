"""Make the real torch.profiler fixtures of tests/data/torch_profiler/traces/ (see README.md).

Run with a Python that has torch (``bash scripts/torch-venv.sh`` prints one):

    PY=$(bash scripts/torch-venv.sh)
    $PY tests/data/torch_profiler/make_traces.py

- ``transformer_block``, ``cnn``, ``custom_function``, ``train_step``, ``compiled``
  (``torch.compile`` with inductor; ``make_traces.py compiled`` makes only it): each model script run by
  perfline's capture helper exactly as ``perfline profile`` runs it (1 warm-up step, 3 recorded):
  ``NAME.pt.trace.json`` + its sidecar ``NAME.pt.trace.json.perfline.json``.
- ``threaded``: two inference threads started before profiling, captured in this process with
  the helper's session (explicit steps): trace + sidecar.
- ``cnn_tensorboard/*.pt.trace.json.gz``: ``tensorboard_trace_handler`` (no sidecar).
- ``transformer_block_export.json``: ``prof.export_chrome_trace`` of a plain ``with profile()``
  block (no schedule, no sidecar).

Then it checks the join the sidecar relies on, on every trace: ``External id`` unique among the
trace's ``cpu_op`` and ``user_annotation`` events, and every sidecar entry names an op of that id with the same name.
"""

from __future__ import annotations

import glob
import gzip
import importlib.util
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
CAPTURE = os.path.join(ROOT, "clients", "torch_capture")
MODELS = os.path.join(HERE, "models")
OUT = os.path.join(HERE, "traces")
HELPER_MODELS = ("transformer_block", "cnn", "custom_function", "train_step")
#: compiled by inductor, which needs a C++ compiler (``make_traces.py compiled`` makes it alone)
COMPILED = "compiled"
MAX_BYTES = 2 * 1024 * 1024


def _load(path: str, name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run_helper(model: str) -> None:
    script = os.path.join(MODELS, model + ".py")
    command = [sys.executable, os.path.join(CAPTURE, "helper.py"), "--out", OUT]
    command += ["--steps", "3", "--warmup", "1", "--", script]
    subprocess.run(command, check=True)


def threaded() -> None:
    sys.path.insert(0, MODELS)
    import threaded as model  # the model folder is the "workspace"

    helper = _load(os.path.join(CAPTURE, "helper.py"), "_perfline_helper_for_fixtures")
    session_module = helper._load_session_module()
    model.start_workers()
    session = session_module.CaptureSession(OUT, "threaded", steps=2, warmup=1, all_threads=True)
    session.start()
    try:
        for _ in range(3):
            model.run_round()
            session.step()
    finally:
        session.finish()
        model.stop_workers()


def tensorboard_and_export() -> None:
    import torch

    sys.path.insert(0, MODELS)
    import cnn
    import transformer_block

    torch.manual_seed(0)
    net = cnn.SmallCNN().eval()
    images = torch.randn(4, 3, 32, 32)
    folder = os.path.join(OUT, "cnn_tensorboard")
    shutil.rmtree(folder, ignore_errors=True)
    activities = [torch.profiler.ProfilerActivity.CPU]
    with (
        torch.no_grad(),
        torch.profiler.profile(
            activities=activities,
            schedule=torch.profiler.schedule(wait=0, warmup=1, active=2),
            on_trace_ready=torch.profiler.tensorboard_trace_handler(
                folder, worker_name="cnn", use_gzip=True
            ),
            record_shapes=True,
            profile_memory=True,
            with_stack=True,
        ) as prof,
    ):
        for _ in range(3):
            net(images)
            prof.step()
    block = transformer_block.Block().eval()
    x = torch.randn(2, 32, 64)
    with (
        torch.no_grad(),
        torch.profiler.profile(activities=activities, with_stack=True, record_shapes=True) as plain,
    ):
        block(x)
    plain.export_chrome_trace(os.path.join(OUT, "transformer_block_export.json"))


def _load_trace(path: str) -> dict:  # type: ignore[type-arg]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as stream:
        return json.load(stream)  # type: ignore[no-any-return]


def check(path: str) -> str:
    size = os.path.getsize(path)
    assert size < MAX_BYTES, f"{path}: {size} bytes, over the fixture budget"
    names: dict[int, str] = {}
    for event in _load_trace(path)["traceEvents"]:
        if event.get("cat") in ("cpu_op", "user_annotation"):
            key = event["args"]["External id"]
            assert key not in names, f"{path}: External id {key} twice"
            names[key] = event["name"]
    line = f"{os.path.relpath(path, HERE)}: {size} bytes, {len(names)} cpu_op"
    sidecar_file = path + ".perfline.json"
    if os.path.exists(sidecar_file):
        with open(sidecar_file, encoding="utf-8") as stream:
            sidecar = json.load(stream)
        for key, _stack, name in sidecar["ops"]:
            assert names.get(key) == name, f"{path}: sidecar op {key} {name} != {names.get(key)}"
        line += f", {len(sidecar['ops'])} with a statement ({sidecar['level']} level)"
    return line


def main() -> None:
    import torch

    print(f"torch {torch.__version__}, python {sys.version.split()[0]}")
    os.makedirs(OUT, exist_ok=True)
    only = sys.argv[1:]  # names of helper models to make again, alone; none: everything
    for model in only or (*HELPER_MODELS, COMPILED):
        run_helper(model)
    if not only:
        threaded()
        tensorboard_and_export()
    for leftover in glob.glob(os.path.join(OUT, "perfline-profile.json")):
        os.remove(leftover)
    traces = sorted(
        glob.glob(os.path.join(OUT, "*.pt.trace.json"))
        + glob.glob(os.path.join(OUT, "*", "*.pt.trace.json.gz"))
        + [os.path.join(OUT, "transformer_block_export.json")]
    )
    for path in traces:
        print(check(path))


if __name__ == "__main__":
    main()
