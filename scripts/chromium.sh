# Sourced by the browser tests (tests/html/browser/run.sh, vscode-extension/test/e2e/run.sh):
# ensure_chromium installs Debian's chromium with apt-get when it is missing, sets CHROMIUM to
# its path and prints its version.
ensure_chromium() {
  if ! command -v chromium >/dev/null; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
  fi
  CHROMIUM=$(command -v chromium)
  "$CHROMIUM" --version || true
}
