#!/usr/bin/env bash
# End-to-end check of the extension in a real VS Code (code-server 4.100.3 = VS Code 1.100.3)
# driven by headless Chromium through playwright-core:
#   1. builds perfline-<version>.vsix (npm run package),
#   2. installs code-server outside git ($PERFLINE_E2E_HOME, default ~/.cache/perfline-e2e; code-
#      server, chromium and playwright keep their state under $PERFLINE_E2E_HOME/state, never in
#      ~/.config or ~/.local/share: scripts/chromium.sh's test_tool_env),
#   3. installs Debian's chromium if missing,
#   4. side-loads the .vsix into a fresh user-data dir, sets perfline.server.python,
#   5. opens a copy of examples/kws, and drive.mjs asserts on the page: the inlay hint text (with
#      its share marker) on the expected lines of dscnn.py, the hover (every statistic, the
#      operator rows, what ran), the code lenses, the status bar item, the rendered Show Breakdown,
#      Show Report (the server's HTML page in a webview: the line figure, a click jumps the editor;
#      with a baseline document, bound to a key with the command's arguments, the compare view),
#      a configuration diagnostic (perfline.toml broken, then restored), a delta hint (Set Current
#      Result as Baseline, a second real ETDump of the program written over the first: the hints
#      show the significant changes, the hover base/new/delta), Reanalyze, a crash restart,
#      settings applied without a reload.
# The expected lines, labels and lens titles come from `perfline annotate` (in-process analysis),
# the expected changes from `perfline compare --json` of the two ETDumps (in-process); the
# editor gets its figures from the server the extension itself starts.
# Screenshots go to test/e2e/screenshots/ (gitignored). Exit code 0 only if every check passed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
EXT=$(cd "$HERE/../.." && pwd)
REPO=$(cd "$EXT/.." && pwd)
SOURCE_WS=$(cd "${PERFLINE_E2E_WORKSPACE:-$REPO/examples/kws}" && pwd)
PY=${PERFLINE_PYTHON:-$REPO/.venv/bin/python}
[ -x "$PY" ] || PY=$(command -v python3)
E2E_HOME=${PERFLINE_E2E_HOME:-$HOME/.cache/perfline-e2e}
CS_HOME=$E2E_HOME/code-server
CS=$CS_HOME/node_modules/.bin/code-server
WORK=$HERE/.work
SHOTS=$HERE/screenshots
# The run edits the workspace (a broken perfline.toml): it works on a copy.
WS=$WORK/ws
SOURCE=$WS/dscnn.py

step() { printf '\n== %s\n' "$*"; }

step "checks"
[ -f "$SOURCE_WS/dscnn.py" ] || { echo "missing $SOURCE_WS/dscnn.py"; exit 2; }
[ -f "$SOURCE_WS/perfline.toml" ] || { echo "missing $SOURCE_WS/perfline.toml"; exit 2; }
"$PY" -c 'import perfline.server' || { echo "$PY cannot import perfline.server (pip install -e . first)"; exit 2; }
echo "workspace $SOURCE_WS (copied to $WS), python $PY"

step "build the .vsix"
cd "$EXT"
[ -d node_modules ] || npm ci --no-audit --no-fund
npm run --silent package
VERSION=$(node -p "require('./package.json').version")
VSIX=$EXT/perfline-$VERSION.vsix
[ -f "$VSIX" ] || { echo "no $VSIX"; exit 2; }

step "code-server 4.100.3"
CS_HOME=$CS_HOME "$HERE/install-code-server.sh"

step "chromium"
# shellcheck source=../../../scripts/chromium.sh
. "$REPO/scripts/chromium.sh"
ensure_chromium
test_tool_env

step "expected figures (perfline annotate, in-process)"
rm -rf "$WORK"
mkdir -p "$WORK/data/User" "$WORK/ext" "$SHOTS"
cp -r "$SOURCE_WS" "$WS"
rm -f "$SHOTS"/*.png
(cd "$WS" && "$PY" -m perfline annotate --json "$SOURCE") > "$WORK/expected.json"
(cd "$WS" && "$PY" -m perfline annotate --no-color "$SOURCE") > "$WORK/expected.txt"
grep -c . "$WORK/expected.txt" >/dev/null
RERUN=$REPO/tests/data/docs/dscnn_portable_rerun.etdump
[ -f "$RERUN" ] || { echo "missing $RERUN"; exit 2; }
cp "$RERUN" "$WORK/rerun.etdump"
(cd "$WS" && "$PY" -m perfline compare --json --source-root . \
  dscnn_portable.etrecord,dscnn_portable.etdump dscnn_portable.etrecord,"$WORK/rerun.etdump") \
  > "$WORK/expected-compare.json"

step "a baseline for the compare view (tests/support/compare_pair.py: the example's durations redrawn, dscnn.py:26 25% slower)"
(cd "$REPO" && "$PY" -m tests.support.compare_pair "$WORK/pair" --runs 30) > /dev/null
(cd "$WS" && "$PY" -m perfline analyze "$WORK/pair/new.etrecord" "$WORK/pair/new.etdump" \
  --output-dir "$WORK/pair-out" --json) > "$WS/baseline.json"
# The verdicts the webview must show, from `perfline compare --json` (the CLI's code path).
(cd "$WS" && "$PY" -m perfline compare baseline.json dscnn_portable.etrecord,dscnn_portable.etdump \
  --json) > "$WORK/compare.json"

step "side-load the extension"
env "${TOOL_ENV[@]}" "$CS" --user-data-dir "$WORK/data" --extensions-dir "$WORK/ext" \
  --install-extension "$VSIX"
# perfline.server.* are machine settings; code-server is a remote window, which
# reads them from the Machine settings (user-level values are ignored there, as in VS Code Remote).
mkdir -p "$WORK/data/Machine"
printf '{\n  "perfline.server.python": "%s"\n}\n' "$PY" > "$WORK/data/Machine/settings.json"
cat > "$WORK/data/User/settings.json" <<JSON
{
  "editor.inlayHints.enabled": "on",
  "editor.codeLens": true,
  "editor.minimap.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "window.commandCenter": false,
  "git.openRepositoryInParentFolders": "never",
  "chat.commandCenter.enabled": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden"
}
JSON

# The compare view is opened the way a user binds it: a key with the command's arguments.
cat > "$WORK/data/User/keybindings.json" <<JSON
[
  {"key": "ctrl+alt+j", "command": "perfline.showReport", "args": {"baseline": "baseline.json"}}
]
JSON

step "start code-server"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$PORT" > "$WORK/config.yaml"
env "${TOOL_ENV[@]}" "$CS" --config "$WORK/config.yaml" --auth none --bind-addr "127.0.0.1:$PORT" \
  --disable-telemetry --disable-update-check --disable-workspace-trust --disable-getting-started-override \
  --user-data-dir "$WORK/data" --extensions-dir "$WORK/ext" "$WS" > "$WORK/code-server.log" 2>&1 &
CS_PID=$!
cleanup() {
  kill "$CS_PID" 2>/dev/null || true
  wait "$CS_PID" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1; then break; fi
  kill -0 "$CS_PID" 2>/dev/null || { cat "$WORK/code-server.log"; exit 2; }
  sleep 0.5
done
echo "code-server on 127.0.0.1:$PORT (pid $CS_PID)"

step "drive VS Code in headless chromium"
set +e
env "${TOOL_ENV[@]}" node "$HERE/drive.mjs" \
  --url "http://127.0.0.1:$PORT/?folder=$WS" \
  --chromium "$CHROMIUM" \
  --file "$(basename "$SOURCE")" \
  --expected "$WORK/expected.json" \
  --expected-text "$WORK/expected.txt" \
  --compare "$WORK/compare.json" \
  --shots "$SHOTS" \
  --settings "$WORK/data/User/settings.json" \
  --server-parent "$CS_PID" \
  --workspace "$WS" \
  --rerun "$WORK/rerun.etdump" \
  --expected-compare "$WORK/expected-compare.json" \
  --logs "$WORK/data/logs"
status=$?
set -e
find "$WORK/data/logs" -name '*perfline*' -newer "$WORK/config.yaml" -exec cp {} "$WORK/" \; 2>/dev/null || true
echo "screenshots: $SHOTS"; ls -1 "$SHOTS"
exit $status
