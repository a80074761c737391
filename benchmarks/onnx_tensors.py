"""Memory of a model with large packed tensors (issue 38 N8), in the CLI and the daemon.

Writes an ONNX model (``tests/support/onnx_writer.py``: no exporter writes packed
``float_data`` this large, but a hostile or old one may) holding one initializer of
``--megabytes`` MB of packed ``float_data`` and one of packed ``int64_data``, then:

* runs ``perfline analyze MODEL --static`` and prints its peak resident memory
  (``ru_maxrss`` of that child) and time;
* starts ``perfline serve`` on a workspace holding the model with ``[static] discover =
  true``, waits for the job, and prints the daemon's peak (``VmHWM``) and current
  (``VmRSS``) resident memory, next to the same for an empty workspace.

Usage: ``python benchmarks/onnx_tensors.py [--megabytes 100]``. Prints figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # the tests' helpers; an installed perfline first

from tests.support.onnx_writer import (  # noqa: E402
    initializer,
    model,
    node,
    packed_floats,
    tensor_info,
)
from tests.support.wire_daemon import Daemon, running  # noqa: E402


def write_model(path: Path, megabytes: int) -> None:
    floats = megabytes * 1024 * 1024 // 2 // 4
    ints = megabytes * 1024 * 1024 // 2 // 8
    data = model(
        [node("Add", ["x", "w"], ["y"], "add0"), node("Add", ["y", "k"], ["z"], "add1")],
        [tensor_info("x", 1, [floats])],
        [tensor_info("z", 1, [floats])],
        [
            initializer("w", [floats], floats=packed_floats(floats)),
            initializer("k", [ints], int64s=((1 << 56) + n for n in range(ints))),
        ],
    )
    path.write_bytes(data)


def _status(daemon: Daemon, key: str) -> int:
    text = Path(f"/proc/{daemon.process.pid}/status").read_text()
    found = re.search(rf"^{key}:\s+(\d+) kB", text, re.MULTILINE)
    return int(found.group(1)) if found else -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--write", metavar="PATH", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.write:  # in a process of its own: the children measured never share its pages
        write_model(Path(options.write), options.megabytes)
        return
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        workspace = base / "ws"
        workspace.mkdir()
        target = workspace / "packed.onnx"
        subprocess.run(
            [
                sys.executable,
                __file__,
                "--write",
                str(target),
                "--megabytes",
                str(options.megabytes),
            ],
            check=True,
        )
        print(f"model: {target.stat().st_size / 1e6:.1f} MB")
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "perfline", "analyze", str(target), "--static",
             "--output-dir", str(base / "out")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        _, status, usage = os.wait4(child.pid, 0)
        took = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        print(f"CLI analyze --static: exit {code}, {took:.1f} s, peak RSS {usage.ru_maxrss} KiB")
        empty = base / "empty"
        empty.mkdir()
        for name in ("e", "d"):
            (base / name).mkdir()
        with running(empty, base / "e") as daemon:
            print(f"daemon, empty workspace: VmHWM {_status(daemon, 'VmHWM')} KiB")
        (workspace / "perfline.toml").write_text("[static]\ndiscover = true\n")
        with running(workspace, base / "d") as daemon, daemon.client() as client:
            jobs = client.request("perfline/jobs")["jobs"]
            print(f"daemon, the model: jobs {[(j['name'], j['state']) for j in jobs]}")
            print(f"  VmHWM {_status(daemon, 'VmHWM')} KiB, VmRSS {_status(daemon, 'VmRSS')} KiB")


if __name__ == "__main__":
    main()
