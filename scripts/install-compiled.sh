#!/usr/bin/env bash
# Install perfline into a virtual environment with its core post-processing compiled by
# mypyc (setup.py, PERFLINE_COMPILE=1); pure Python where no C compiler is found.
# Usage: scripts/install-compiled.sh VENV [EXTRAS]   e.g. scripts/install-compiled.sh .venv dev
# Not editable: compiled modules next to the sources would shadow every later edit.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-.venv}"
case "$venv" in /*) ;; *) venv="$PWD/$venv" ;; esac
extras="${2:+[$2]}"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
# the dependencies (and mypyc, which ships with mypy), then the compiled build over them
"$venv/bin/python" -m pip install -q "setuptools>=77" wheel "mypy==2.4.1" ".$extras"
echo "compiling the core post-processing with mypyc (about two minutes on two cores)..."
PERFLINE_COMPILE=1 PYTHONWARNINGS=ignore "$venv/bin/python" -m pip install -q --no-build-isolation --no-deps \
  --force-reinstall .
version="$(cd / && "$venv/bin/perfline" --version)"
echo "$version"
case "$version" in
  *compiled*) ;;
  *) echo "note: the C build failed (no compiler?); perfline is installed as pure Python," \
       "correct but slower (see docs/performance.md)" >&2 ;;
esac
