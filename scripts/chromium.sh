# Sourced by the browser tests (tests/core/report_html/browser/run.sh, vscode-extension/test/e2e/run.sh):
# ensure_chromium installs Debian's chromium when it is missing (scripts/apt-missing.sh: only
# what is missing, no recommends, nothing installed upgraded), sets CHROMIUM to its path and
# prints its version. test_tool_env keeps the test tools' state in one cache folder: the HOME,
# XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_CACHE_HOME and TMPDIR of the processes run with it
# (chromium's profiles and caches, playwright, code-server's config, data and extensions) are
# under $PERFLINE_E2E_HOME/state (default ~/.cache/perfline-e2e), never ~/.config or
# ~/.local/share.
# shellcheck source=apt-missing.sh
. "$(dirname "${BASH_SOURCE[0]}")/apt-missing.sh"

PERFLINE_E2E_HOME=${PERFLINE_E2E_HOME:-$HOME/.cache/perfline-e2e}

ensure_chromium() {
  command -v chromium >/dev/null || apt_install_missing chromium
  CHROMIUM=$(command -v chromium)
  "$CHROMIUM" --version || true
}

# test_tool_env: sets TOOL_ENV, the variables that keep a test tool's state under
# $PERFLINE_E2E_HOME/state; run a tool as  env "${TOOL_ENV[@]}" COMMAND ...  (env execs it, so
# $! of a background run is the tool's own process).
test_tool_env() {
  local state=$PERFLINE_E2E_HOME/state
  mkdir -p "$state/home" "$state/config" "$state/data" "$state/cache" "$state/tmp"
  TOOL_ENV=(HOME="$state/home" XDG_CONFIG_HOME="$state/config" XDG_DATA_HOME="$state/data"
    XDG_CACHE_HOME="$state/cache" TMPDIR="$state/tmp")
  echo "test tools' state (HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_CACHE_HOME, TMPDIR): $state"
}
