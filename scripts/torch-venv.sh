#!/usr/bin/env bash
# Make (once) and print the Python of a virtual environment holding torch 2.13.0 (the CPU build),
# the "user's Python" of the torch.profiler tests: `perfline profile --python PY`, the capture
# helper, the fixture generator tests/data/torch_profiler/make_traces.py and the notebook test
# (ipykernel + nbclient). perfline itself is not installed there: the capture helper needs only
# torch and the standard library. Cached outside the checkout: $PERFLINE_TORCH_HOME, default
# ~/.cache/perfline-torch (about 1 GB; torch's wheel from this machine's disk, the rest from PyPI;
# seconds when cached, a minute or two otherwise).
set -euo pipefail
home=${PERFLINE_TORCH_HOME:-$HOME/.cache/perfline-torch}
venv="$home/venv-torch-2.13.0"
if ! "$venv/bin/python" -c 'import torch, nbclient, ipykernel; assert torch.__version__.startswith("2.13.0")' >/dev/null 2>&1; then
  echo "installing torch==2.13.0 (CPU), ipykernel and nbclient into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$home"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip >&2
  "$venv/bin/python" -m pip install -q "torch==2.13.0" ipykernel nbclient >&2
fi
echo "$venv/bin/python"
