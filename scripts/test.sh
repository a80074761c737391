#!/usr/bin/env bash
# Set everything up and run the whole test suite: ruff, mypy, pytest (pure Python, then the
# compiled build), the live comparison with the reference, the VS Code extension's checks and
# the HTML report in headless Chromium, its end-to-end run in a real VS Code. Leaves ./.venv (the
# user's compiled install made by scripts/example.sh) alone. Extra arguments go to both pytest runs.
set -euo pipefail
cd "$(dirname "$0")/.."

cat <<'SAYS'
perfline test suite. It makes, in this checkout:
  .venv-test      perfline installed editable, pure Python, with the dev tools
  .venv-compiled  perfline with its core compiled by mypyc (pytest runs again against it)
and outside it:
  ~/.cache/perfline-oracle   a venv with the reference, mlia==0.12.3, from PyPI (live comparison
                             of 300 generated documents; PERFLINE_ORACLE_PYTHON=... uses another)
  ~/.cache/perfline-model-explorer   Model Explorer and its ONNX/TOSA/VGF adapters with
                             torch 2.13.0, from PyPI, for the overlay tests
                             (PERFLINE_SKIP_MODEL_EXPLORER=1 skips them)
  ~/.cache/perfline-torch    a venv with torch 2.13.0 (CPU; the wheel from this machine's disk),
                             ipykernel and nbclient from PyPI: the user's Python of the
                             `perfline profile` and `perfline.torch` tests
                             (PERFLINE_TORCH_PYTHON=... uses another)
  ~/.cache/perfline-e2e      code-server 4.100.3 from npm, for the extension's end-to-end run, and
                             under state/ the test tools' own state: code-server's config, data
                             and extensions, chromium's profiles and caches, playwright (their
                             HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_CACHE_HOME and TMPDIR point
                             there; nothing goes to ~/.config or ~/.local/share).
                             PERFLINE_E2E_HOME=... uses another folder
and, with apt-get, installs the Debian packages that are missing and nothing else: chromium (for
the HTML report's browser test and the end-to-end run) and, for the end-to-end run only, ripgrep
and pkg-config; no recommended packages, and no package already installed is upgraded (apt-get
simulates the install first; when it would upgrade one it installs nothing and says which). The
GSS-API headers code-server's kerberos module compiles against (krb5-multidev, comerr-dev) are
downloaded and unpacked under ~/.cache/perfline-e2e/krb5-headers, not installed: Debian's
libkrb5-dev would upgrade the installed Kerberos libraries. It names the packages before installing
them.
PERFLINE_SKIP_BROWSER=1 skips the browser test; PERFLINE_SKIP_E2E=1 skips the end-to-end run.
SAYS

python3 -m venv .venv-test
.venv-test/bin/python -m pip install -q --upgrade pip
.venv-test/bin/python -m pip install -q -e '.[dev]'
echo "== ruff"
.venv-test/bin/ruff check .
.venv-test/bin/ruff format --check .
echo "== mypy"
.venv-test/bin/mypy
.venv-test/bin/mypy benchmarks

echo "== the reference (mlia 0.12.3) for the live comparison"
PERFLINE_ORACLE_PYTHON=${PERFLINE_ORACLE_PYTHON:-$(bash scripts/oracle-venv.sh)}
export PERFLINE_ORACLE_PYTHON
export PERFLINE_DIFFERENTIAL_COUNT=${PERFLINE_DIFFERENTIAL_COUNT:-300}
echo "reference: $PERFLINE_ORACLE_PYTHON; $PERFLINE_DIFFERENTIAL_COUNT generated documents"

echo "== torch 2.13 (CPU) for the perfline profile tests"
PERFLINE_TORCH_PYTHON=${PERFLINE_TORCH_PYTHON:-$(bash scripts/torch-venv.sh)}
export PERFLINE_TORCH_PYTHON
echo "torch: $PERFLINE_TORCH_PYTHON"

echo "== pytest"
.venv-test/bin/pytest -q -p no:cacheprovider "$@"
echo "== pytest again, against the compiled build of the core (mypyc)"
bash scripts/install-compiled.sh .venv-compiled dev
compiled_perfline="$PWD/.venv-compiled/bin/perfline"
if (cd / && "$compiled_perfline" --version) | grep -q "compiled"; then
  # append: the installed (compiled) perfline, not the source tree, is the one imported
  PERFLINE_EXPECT_BUILD=compiled .venv-compiled/bin/pytest -q -p no:cacheprovider \
    --import-mode=append "$@"
else
  echo "no C compiler here: the compiled build fell back to pure Python; its run is skipped" >&2
fi
export PERFLINE_PYTHON="$PWD/.venv-test/bin/python"
if [ "${PERFLINE_SKIP_BROWSER:-0}" != "1" ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "== HTML report in headless chromium (playwright-core + Debian's chromium)"
    bash tests/core/report_html/browser/run.sh
  else
    echo "npm not found: the HTML report's browser test needs Node.js 20 and npm" >&2
    exit 1
  fi
fi
if [ -f vscode-extension/package.json ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "== vscode-extension"
    (cd vscode-extension && npm ci --no-audit --no-fund --loglevel=error && npm test)
    if [ "${PERFLINE_SKIP_E2E:-0}" != "1" ]; then
      echo "== vscode-extension end to end (code-server + headless chromium)"
      # A browser-driven UI run can stumble on timing; one visible retry, never more.
      bash vscode-extension/test/e2e/run.sh || {
        echo "e2e failed once; retrying (see the output above for the first failure)" >&2
        bash vscode-extension/test/e2e/run.sh
      }
    fi
  else
    echo "npm not found: the VS Code extension's checks need Node.js 20 and npm" >&2
    exit 1
  fi
fi
