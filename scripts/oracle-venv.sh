#!/usr/bin/env bash
# Make (once) and print the Python of a virtual environment holding the reference
# implementation, mlia==0.12.3, for the live comparisons of the test suite
# (tests/product/differential/test_differential.py, tests/core/backends/nx_estimator/test_reference.py).
# Cached outside the checkout: $PERFLINE_ORACLE_HOME, default ~/.cache/perfline-oracle
# (about 120 MB, 18 packages from PyPI; seconds when cached, under a minute otherwise).
set -euo pipefail
home=${PERFLINE_ORACLE_HOME:-$HOME/.cache/perfline-oracle}
venv="$home/venv-mlia-0.12.3"
if ! "$venv/bin/python" -c 'import mlia.core.output_postprocessing' >/dev/null 2>&1; then
  echo "installing the reference (mlia==0.12.3) into $venv" >&2
  rm -rf "$venv"
  mkdir -p "$home"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip >&2
  "$venv/bin/python" -m pip install -q "mlia==0.12.3" >&2
fi
echo "$venv/bin/python"
