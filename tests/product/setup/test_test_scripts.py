"""Issue 37 item 4: the test scripts install only what is missing, upgrade nothing that is
installed, keep the test tools' state in one cache folder, and say so before doing it.

``scripts/apt-missing.sh`` is run with stand-ins for ``apt-get`` and ``dpkg-query`` first on
``PATH`` (they log how they were called and answer as a Debian system would), so the tests see
what it would install and that it refuses an install that would upgrade a package; the run
scripts are read for how they start code-server, chromium and playwright.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.support.locations import REPO

APT_MISSING = REPO / "scripts" / "apt-missing.sh"
CHROMIUM = REPO / "scripts" / "chromium.sh"
TEST_SH = REPO / "scripts" / "test.sh"
E2E_RUN = REPO / "vscode-extension" / "test" / "e2e" / "run.sh"
E2E_INSTALL = REPO / "vscode-extension" / "test" / "e2e" / "install-code-server.sh"
BROWSER_RUN = REPO / "tests" / "core" / "report_html" / "browser" / "run.sh"
SCRIPTS = (TEST_SH, CHROMIUM, E2E_RUN, E2E_INSTALL, BROWSER_RUN)

#: What ``apt-get install -s`` prints when libkrb5-dev needs newer Kerberos libraries.
SIMULATION_WITH_UPGRADES = """\
Reading package lists...
The following packages will be upgraded:
  libgssapi-krb5-2 libkrb5-3
Inst libkrb5-3 [1.20.1-2+deb12u2] (1.20.1-2+deb12u5 Debian-Security:12/oldstable-security [amd64])
Inst libgssapi-krb5-2 [1.20.1-2+deb12u2] (1.20.1-2+deb12u5 Debian-Security:12 [amd64])
Inst libkrb5-dev (1.20.1-2+deb12u5 Debian-Security:12/oldstable-security [amd64])
Conf libkrb5-3 (1.20.1-2+deb12u5 Debian-Security:12/oldstable-security [amd64])
"""
SIMULATION_NEW_ONLY = """\
Inst libogg0 (1.3.5-3 Debian:12.15/oldstable [amd64])
Inst chromium (156.0.8078.114-1~deb12u1 Debian-Security:12/oldstable-security [amd64])
"""


def _fake_tools(folder: Path, installed: set[str], simulation: str) -> Path:
    """``apt-get`` and ``dpkg-query`` stand-ins logging their arguments to ``calls.log``."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    log = folder / "calls.log"
    (folder / "simulation.txt").write_text(simulation)
    (bin_dir / "apt-get").write_text(
        f'#!/bin/sh\necho "apt-get $*" >> {log}\n'
        f'case " $* " in *" -s "*) cat {folder / "simulation.txt"};; esac\n'
    )
    known = " ".join(sorted(installed))
    (bin_dir / "dpkg-query").write_text(
        "#!/bin/sh\nfor last; do :; done\n"
        f'case " {known} " in *" $last "*) printf "install ok installed";; *) exit 1;; esac\n'
    )
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    return log


def _install(
    tmp_path: Path, packages: list[str], installed: set[str], simulation: str
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    log = _fake_tools(tmp_path, installed, simulation)
    done = subprocess.run(
        ["bash", "-c", f'. "{APT_MISSING}"; apt_install_missing "$@"', "apt", *packages],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"},
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return done, calls


def test_nothing_is_installed_when_everything_is_there(tmp_path: Path) -> None:
    done, calls = _install(tmp_path, ["chromium", "ripgrep"], {"chromium", "ripgrep"}, "")
    assert done.returncode == 0, done.stderr
    assert "already installed: chromium ripgrep" in done.stdout
    assert calls == []


def test_an_install_that_would_upgrade_installed_packages_is_refused(tmp_path: Path) -> None:
    done, calls = _install(
        tmp_path, ["ripgrep", "libkrb5-dev"], {"ripgrep"}, SIMULATION_WITH_UPGRADES
    )
    assert done.returncode == 1
    assert "would upgrade installed packages: libkrb5-3 libgssapi-krb5-2" in done.stderr
    installs = [call for call in calls if " install " in f" {call} "]
    assert installs == ["apt-get install -s -q --no-install-recommends --no-upgrade libkrb5-dev"], (
        calls
    )  # only the simulation, and only of what is missing


def test_only_the_missing_packages_are_installed_without_upgrades(tmp_path: Path) -> None:
    done, calls = _install(tmp_path, ["chromium"], set(), SIMULATION_NEW_ONLY)
    assert done.returncode == 0, done.stderr
    said = done.stdout.index("installing with apt-get")
    assert "libogg0 chromium" in done.stdout[said:]  # named before the install
    assert calls[-1] == "apt-get install -y -q --no-install-recommends --no-upgrade chromium"


def test_every_apt_install_goes_through_the_helper() -> None:
    for script in SCRIPTS:
        for number, line in enumerate(script.read_text().splitlines(), start=1):
            code = line.split("#", 1)[0]
            assert not re.search(r"apt-get\s+(-\S+\s+)*install", code), f"{script}:{number}"
    assert "apt_install_missing chromium" in CHROMIUM.read_text()
    assert "apt_install_missing" in E2E_INSTALL.read_text()


def test_the_tools_state_lives_in_one_cache_folder(tmp_path: Path) -> None:
    cache = tmp_path / "e2e"
    shown = subprocess.run(
        [
            "bash",
            "-c",
            f'. "{CHROMIUM}"; test_tool_env >/dev/null; env "${{TOOL_ENV[@]}}" sh -c '
            "'echo \"$HOME $XDG_CONFIG_HOME $XDG_DATA_HOME $XDG_CACHE_HOME $TMPDIR\"'",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "PERFLINE_E2E_HOME": str(cache)},
    )
    assert shown.returncode == 0, shown.stderr
    folders = shown.stdout.split()
    assert len(folders) == 5 and all(f.startswith(f"{cache}/state/") for f in folders)
    assert all(Path(folder).is_dir() for folder in folders)


def test_code_server_chromium_and_playwright_run_with_that_state() -> None:
    """Every start of code-server and of a playwright driver goes through ``TOOL_ENV``."""
    for script in (E2E_RUN, BROWSER_RUN):
        text = script.read_text()
        assert "test_tool_env" in text
        starts = [
            line
            for line in text.splitlines()
            if re.search(r'"\$CS"\s+--(user-data-dir|config)|node "\$HERE/drive\.mjs"', line)
        ]
        assert starts, script
        for line in starts:
            assert line.startswith('env "${TOOL_ENV[@]}" '), f"{script.name}: {line}"


def test_test_sh_says_all_of_it_before_doing_it() -> None:
    text = TEST_SH.read_text()
    says = " ".join(text[text.index("cat <<'SAYS'") : text.index("\nSAYS\n")].split())
    first_command = text.index("python3 -m venv .venv-test")
    assert text.index("cat <<'SAYS'") < first_command
    for needed in (
        "~/.cache/perfline-e2e",
        "XDG_CONFIG_HOME",
        "~/.config or ~/.local/share",
        "no package already installed is upgraded",
        "unpacked under ~/.cache/perfline-e2e/krb5-headers, not installed",
        "names the packages before installing them",
    ):
        assert needed in says, needed


def test_gss_api_headers_are_unpacked_privately_not_installed(tmp_path: Path) -> None:
    """code-server's kerberos module needs the GSS-API headers only: they are downloaded and
    unpacked into a folder of the test's cache (``apt-get download``, ``dpkg-deb -x``) and put on
    ``CPATH``, never installed with apt-get (libkrb5-dev would upgrade Kerberos libraries)."""
    package = tmp_path / "pkg"
    header = package / "usr" / "include" / "mit-krb5" / "gssapi" / "gssapi.h"
    header.parent.mkdir(parents=True)
    header.write_text("#define PERFLINE_PRIVATE_GSSAPI 1\n")
    (package / "DEBIAN").mkdir()
    (package / "DEBIAN" / "control").write_text(
        "Package: krb5-multidev\nVersion: 1.0\nArchitecture: all\n"
        "Maintainer: test <t@example.invalid>\nDescription: stand-in\n"
    )
    deb = tmp_path / "krb5-multidev.deb"
    subprocess.run(["dpkg-deb", "--build", str(package), str(deb)], check=True, capture_output=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    (bin_dir / "apt-get").write_text(
        f'#!/bin/sh\necho "apt-get $*" >> {log}\n'
        f'case " $* " in *" download "*) cp {deb} ./krb5-multidev_1.0_all.deb;; esac\n'
    )
    (bin_dir / "apt-get").chmod(0o755)
    headers = tmp_path / "krb5-headers"
    source = tmp_path / "t.c"
    source.write_text(
        "#include <gssapi/gssapi.h>\nint main(void) { return PERFLINE_PRIVATE_GSSAPI - 1; }\n"
    )
    done = subprocess.run(
        [
            "bash",
            "-c",
            f'. "{APT_MISSING}"; private_gssapi_headers "$1" >/dev/null; gcc -o "$2" "$3" && "$2"',
            "apt",
            str(headers),
            str(tmp_path / "t"),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
    )
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert calls == ["apt-get update -q", "apt-get download -q krb5-multidev comerr-dev"]
    assert (headers / "usr/include/mit-krb5/gssapi/gssapi.h").is_file()
    assert "private_gssapi_headers" in E2E_INSTALL.read_text()
    assert "libkrb5-dev" not in E2E_INSTALL.read_text().split("need_apt=()")[1].split("fi")[0]
