#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code 1.100.3, the last release whose engines accept Node 20)
# into $CS_HOME (outside git), with the workarounds this offline machine needs
# (see ../../README.md "End-to-end test"). Idempotent: does nothing when already installed.
set -euo pipefail

CS_VERSION=4.100.3
CS_HOME=${CS_HOME:?CS_HOME must be set}
CS_BIN="$CS_HOME/node_modules/.bin/code-server"

if [ -x "$CS_BIN" ] && "$CS_BIN" --version 2>/dev/null | grep -q "^$CS_VERSION"; then
  echo "code-server $CS_VERSION already installed in $CS_HOME"
  exit 0
fi

need_apt=()
command -v rg >/dev/null || need_apt+=(ripgrep)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
if [ ${#need_apt[@]} -gt 0 ]; then
  # only what is missing, no recommends, nothing installed upgraded
  # shellcheck source=../../../scripts/apt-missing.sh
  . "$(dirname "$0")/../../../scripts/apt-missing.sh"
  apt_install_missing "${need_apt[@]}"
fi

# VS Code's `kerberos` module compiles against the GSS-API headers only (it dlopens the
# libraries at run time): when they are not on the system, they are unpacked under
# $CS_HOME/../krb5-headers instead of installing libkrb5-dev, which would upgrade the installed
# Kerberos libraries (scripts/apt-missing.sh: private_gssapi_headers).
if [ ! -f /usr/include/gssapi/gssapi.h ]; then
  # shellcheck source=../../../scripts/apt-missing.sh
  . "$(dirname "$0")/../../../scripts/apt-missing.sh"
  private_gssapi_headers "$(dirname "$CS_HOME")/krb5-headers"
fi

# @vscode/ripgrep's postinstall downloads rg from api.github.com; seed its download cache with
# Debian's rg (code-server 4.100.3 ships @vscode/ripgrep 1.15.11, which fetches rg v13.0.0-10).
tmp=${TMPDIR:-/tmp}
seed=$(mktemp -d)
cp "$(command -v rg)" "$seed/rg"
cache="$tmp/vscode-ripgrep-cache-1.15.11"
mkdir -p "$cache"
asset="$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
[ -f "$asset" ] || tar czf "$asset" -C "$seed" rg
rm -rf "$seed"

mkdir -p "$CS_HOME"
cd "$CS_HOME"
[ -f package.json ] || echo '{"name":"perfline-e2e-code-server","private":true}' > package.json
# root: postinstall refuses without unsafe_perm; node-pty runs `npx node-gyp` (needs yes=true).
npm_config_unsafe_perm=true npm_config_yes=true \
  npm install --no-audit --no-fund --loglevel=error "code-server@$CS_VERSION"
"$CS_BIN" --version
