#!/usr/bin/env bash
# Set everything up in ./.venv (with the batch extra: Dask, pyarrow, DuckDB) and run perfline
# on the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-compiled.sh .venv batch
.venv/bin/perfline annotate examples/kws/dscnn.py
