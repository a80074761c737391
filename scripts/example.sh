#!/usr/bin/env bash
# Set everything up in ./.venv and run perfline on the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
# the extras: batch (`perfline batch`: Dask, pyarrow, DuckDB; docs/batch.md) and mcp
# (`perfline mcp`, the figures for coding agents; docs/agents.md)
bash scripts/install-compiled.sh .venv batch,mcp
.venv/bin/perfline annotate examples/kws/dscnn.py
