#!/usr/bin/env bash
# Set everything up in ./.venv and run the whole test suite: ruff, mypy, pytest,
# and the VS Code extension's own checks (when npm is present).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'
echo "== ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "== mypy"
.venv/bin/mypy
echo "== pytest"
.venv/bin/pytest -q -p no:cacheprovider "$@"
if [ -f vscode-extension/package.json ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "== vscode-extension"
    (cd vscode-extension && npm ci --no-audit --no-fund --loglevel=error && npm test)
  else
    echo "npm not found: the VS Code extension's checks need Node.js 20 and npm" >&2
    exit 1
  fi
fi
