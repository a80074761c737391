"""``perfline.torch`` in a real Jupyter kernel (ipykernel, driven by nbclient, both in the
``PERFLINE_TORCH_PYTHON`` environment of ``scripts/torch-venv.sh``): the run of a ``with``
block displays the HTML report inline, with the notebook's model lines in it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.torch_python import needs_torch, torch_path

MODEL = """\
import torch
from torch import nn


class TinyMixer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up = nn.Linear(48, 192)
        self.down = nn.Linear(192, 48)

    def forward(self, x):
        h = torch.tanh(self.up(x))
        return x + self.down(h)
"""

CELLS = [
    "import torch\nimport perfline.torch\nfrom tinymixer import TinyMixer",
    "model, x = TinyMixer(), torch.randn(16, 48)",
    "with perfline.torch.profile(steps=2, warmup=1) as run:\n"
    "    for _ in range(3):\n"
    "        model(x)\n"
    "        run.step()",
    "run",
]

DRIVER = """\
import json, sys
import nbformat
from nbclient import NotebookClient

cells = json.loads(sys.argv[1])
notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
where = {"metadata": {"path": sys.argv[2]}}
NotebookClient(notebook, kernel_name="perfline-torch", timeout=240, resources=where).execute()
print(json.dumps([cell.get("outputs", []) for cell in notebook.cells]))
"""


@needs_torch
def test_a_notebook_run_displays_the_report_inline(tmp_path: Path) -> None:
    kernels = tmp_path / "jupyter" / "kernels" / "perfline-torch"
    kernels.mkdir(parents=True)
    # the kernel: this Python (perfline) with the torch environment's packages (torch,
    # ipykernel) on its path, as a user who installed perfline into their PyTorch environment
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "perfline + torch",
        "language": "python",
        "env": {
            "PYTHONPATH": os.pathsep.join(
                filter(None, [os.environ.get("PYTHONPATH"), torch_path()])
            )
        },
    }
    (kernels / "kernel.json").write_text(json.dumps(spec))
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "tinymixer.py").write_text(MODEL)
    (tmp_path / "driver.py").write_text(DRIVER)
    environment = dict(os.environ, PYTHONPATH=torch_path(), JUPYTER_PATH=str(tmp_path / "jupyter"))
    done = subprocess.run(
        [sys.executable, str(tmp_path / "driver.py"), json.dumps(CELLS), str(workspace)],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
        cwd=workspace,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    outputs = json.loads(done.stdout.splitlines()[-1])
    (shown,) = outputs[-1]
    page = shown["data"]["text/html"]
    assert page.startswith('<iframe srcdoc="') and 'sandbox="allow-scripts"' in page
    # the report of the capture: the model's statements, in the page's data
    assert "tinymixer.py" in page and "cpu_time" in page
    assert list((workspace / ".perfline" / "runs").glob("*/profile.pt.trace.json"))
