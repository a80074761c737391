#!/usr/bin/env bash
# Set everything up in ./.venv and run perfline on the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-compiled.sh .venv
.venv/bin/perfline annotate examples/kws/dscnn.py
