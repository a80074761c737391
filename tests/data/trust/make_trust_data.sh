#!/usr/bin/env bash
# Make tests/data/trust with pinned PyPI packages (CPU only). VENV defaults to
# ~/.cache/perfline-trust-venv (kept between runs, outside git). Arguments: wide, mlp2x, noise,
# extra, unet (default all); HOGS: busy processes beside the loaded sessions (default: one
# per CPU).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${VENV:-$HOME/.cache/perfline-trust-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install torch==2.13.0 onnx==1.23.2 onnxscript==0.7.2 onnxruntime==1.32.0 numpy==2.4.6
fi
"$venv/bin/python" "$here/make_trust_data.py" "$@"
