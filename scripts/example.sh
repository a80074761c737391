#!/usr/bin/env bash
# Set everything up in ./.venv and run perfline on the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
.venv/bin/perfline annotate examples/kws/dscnn.py
