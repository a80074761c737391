#!/usr/bin/env bash
# Regenerate tests/data/onnxruntime with pinned PyPI packages (CPU only, about a minute once the
# venv exists). VENV defaults to /tmp/perfline-ort-venv; BUILD (where the model source is copied
# and exported from, so the path the stack traces record) to /home/dev/attn. Arguments (attention,
# dscnn, mixer) limit the run to those models.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${VENV:-/tmp/perfline-ort-venv}"
build="${BUILD:-/home/dev/attn}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install torch==2.13.0 onnx==1.23.2 onnxscript==0.7.2 onnxruntime==1.32.0 numpy==2.4.6
fi
"$venv/bin/python" "$here/regen.py" "$build" "$@"
