# Sourced by scripts/chromium.sh and vscode-extension/test/e2e/install-code-server.sh:
# apt_install_missing PKG... installs, with apt-get, the Debian packages of the list that are not
# installed, and nothing else: no recommended packages, and never an upgrade of a package that is
# installed. apt-get first simulates the install; when that would upgrade anything already there
# (a -dev package whose libraries are older than the archive's, say), it installs nothing, names
# the packages and returns 1. It says what it will install before it does.
# private_gssapi_headers DIR: the GSS-API headers (Debian's krb5-multidev and comerr-dev,
# downloaded with apt-get and unpacked into DIR, never installed), put on the compiler's CPATH.
# apt_upgrades reads a simulation (apt-get -s) on stdin and prints the packages it would upgrade.

apt_upgrades() {
  # "Inst NAME [INSTALLED-VERSION] (NEW-VERSION ...)": an upgrade; "Inst NAME (VERSION ...)": new
  sed -n 's/^Inst \([^ ]*\) \[.*$/\1/p'
}

apt_install_missing() {
  local missing=() package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$package")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "Debian packages already installed: $*"
    return 0
  fi
  local options=(--no-install-recommends --no-upgrade)
  echo "apt-get update, then a simulated install of: ${missing[*]}"
  apt-get update -q >/dev/null
  local simulation upgrades
  simulation=$(apt-get install -s -q "${options[@]}" "${missing[@]}")
  upgrades=$(apt_upgrades <<<"$simulation" | tr '\n' ' ')
  if [ -n "$upgrades" ]; then
    echo "not installing ${missing[*]}: apt-get would upgrade installed packages: $upgrades" >&2
    echo "(install them yourself, or skip this test: see scripts/test.sh)" >&2
    return 1
  fi
  echo "installing with apt-get (${options[*]}; nothing installed is upgraded):" \
    "$(sed -n 's/^Inst \([^ ]*\) .*$/\1/p' <<<"$simulation" | tr '\n' ' ')"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${options[@]}" "${missing[@]}"
}

private_gssapi_headers() {
  local headers=$1 debs deb
  if [ ! -f "$headers/usr/include/mit-krb5/gssapi/gssapi.h" ]; then
    echo "GSS-API headers: krb5-multidev and comerr-dev downloaded with apt-get and unpacked" \
      "into $headers (not installed: libkrb5-dev would upgrade the installed Kerberos libraries)"
    debs=$(mktemp -d)
    chmod 755 "$debs" # apt-get download writes as the _apt user
    apt-get update -q >/dev/null
    (cd "$debs" && apt-get download -q krb5-multidev comerr-dev)
    mkdir -p "$headers"
    for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$headers"; done
    rm -rf "$debs"
  fi
  export CPATH="$headers/usr/include/mit-krb5:$headers/usr/include${CPATH:+:$CPATH}"
}
