"""Where a shared daemon advertises itself, so clients find the daemon of a workspace.

A per-user private folder holds one ``daemon-<hash of workspace>-<pid>.json`` per daemon
(several daemons on one workspace are all advertised; a client takes the live one
started last) with its pid, start time, workspace, endpoint (``tcp: [host, port]`` or
``socket: path``) and, for TCP, the token a client presents first
(``server.lsp.admission``). The folder is the first of ``$XDG_RUNTIME_DIR/perfline``,
``<tmp>/perfline-<uid>`` and ``$XDG_CACHE_HOME/perfline/run`` (``~/.cache/perfline/run``)
that is, or can be made, a real directory (not a symbolic link) owned by this user with
mode 0700; one that another user created first, or that is not a directory, is reported
in one warning line and skipped (the next one is used; clients look in the same order).
A folder of this user with a looser mode is tightened to 0700.

Clients only look: they create no folder. Entries are written through
``perfline.server.file_access`` as files of mode 0600 (created so, never loosened): a new
file of a fresh random name renamed over the entry, never through a link; read only if
they are regular files of this user that nobody else may read or write. Entries of dead
processes are removed when found. Standard library only, so clients can import it
without the daemon's dependencies. Cost: a few system calls per look-up.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

from perfline.core.errors import InputError
from perfline.server.file_access import (
    Limits,
    Root,
    make_dirs,
    read_file,
    remove_tree,
    write_bytes,
)

log = logging.getLogger(__name__)

#: The largest entry read (entries are about 300 bytes), and how long reading one may take.
_ENTRY_LIMITS = Limits.with_overrides({"state": 65536}).within(5.0)
#: Folders already reported as unusable (one warning each per process).
_reported: set[str] = set()


class DiscoveryError(OSError):
    """No private folder can hold the discovery entries; the message says why."""


def candidates() -> list[Path]:
    """The folders tried, in order."""
    found = []
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base:
        found.append(Path(base) / "perfline")
    found.append(Path(tempfile.gettempdir()) / f"perfline-{os.getuid()}")
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    found.append(Path(cache) / "perfline" / "run")
    return found


def runtime_dir(*, create: bool = True) -> Path:
    """The private folder of the entries, or ``DiscoveryError``; ``create``: make the
    first usable one if needed (a daemon), else only look (clients create nothing)."""
    problems = []
    for folder in candidates():
        if not create and not os.path.lexists(folder):
            problems.append(f"{folder} does not exist")
            continue
        problem = _make_private(folder)
        if problem is None:
            return folder
        problems.append(problem)
        if str(folder) not in _reported:
            _reported.add(str(folder))
            log.warning("perfline: not using %s: %s; trying the next folder", folder, problem)
    raise DiscoveryError(
        "no private folder for the daemon's discovery entry: " + "; ".join(problems)
    )


def _make_private(folder: Path) -> str | None:
    """``None`` once ``folder`` is a directory of this user of mode 0700, else why not."""
    try:
        if folder.parent != Path(tempfile.gettempdir()):
            make_dirs(folder.parent, root=Root.user_given(), mode=0o700)
        make_dirs(folder, root=Root.user_given(), mode=0o700)
    except InputError as error:
        if not os.path.lexists(folder):
            return f"cannot create it ({'; '.join(p.message for p in error.problems)})"
    try:
        info = os.lstat(folder)
    except OSError as error:
        return f"cannot inspect it ({error.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a directory"
    if info.st_uid != os.getuid():
        return f"it belongs to another user (uid {info.st_uid})"
    if stat.S_IMODE(info.st_mode) & 0o077:
        try:
            os.chmod(folder, 0o700)
        except OSError as error:
            return f"its mode {stat.S_IMODE(info.st_mode):o} cannot be made 0700 ({error.strerror})"
    return None


def _folder(*, create: bool = False) -> Path:
    """The verified folder (its mode and owner checked again just now)."""
    folder = runtime_dir(create=create)
    info = os.lstat(folder)
    if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
        raise DiscoveryError(f"{folder} changed while being opened")
    return folder


def _digest(workspace: Path) -> str:
    return hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:16]


def entry_name(workspace: Path, pid: int | None = None) -> str:
    """The entry of the daemon ``pid`` (this process by default) serving ``workspace``:
    one per daemon, so several daemons on one workspace are all advertised."""
    return f"daemon-{_digest(workspace)}-{pid if pid is not None else os.getpid()}.json"


def _read_entry(folder: Path, name: str) -> dict[str, Any] | None:
    """An entry's data if it is a private regular file of this user, else ``None``."""
    try:
        read = read_file(folder / name, root=Root(folder), kind="state", limits=_ENTRY_LIMITS)
    except InputError:
        return None
    info = read.info
    if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
        log.warning("perfline: ignoring the discovery entry %s (not a private file)", name)
        return None
    try:
        data = json.loads(read.data.decode("utf-8"))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _entries(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.startswith("daemon-") and n.endswith(".json"))


def find_daemon(workspace: Path) -> dict[str, Any] | None:
    """The advertised entry of a live daemon serving ``workspace`` (or an ancestor): of
    several, the one started last. Entries of dead daemons are removed."""
    try:
        folder = _folder()
        names = _entries(folder)
        for path in [workspace.resolve(), *workspace.resolve().parents]:
            digest = _digest(path)
            mine = [
                n
                for n in names
                if n.startswith(f"daemon-{digest}-") or n == f"daemon-{digest}.json"
            ]
            live = [entry for entry in (_live(folder, n) for n in mine) if entry is not None]
            if live:
                return max(live, key=_started)
    except (DiscoveryError, OSError):
        return None
    return None


def _live(folder: Path, name: str) -> dict[str, Any] | None:
    data = _read_entry(folder, name)
    if data is None:
        return None
    pid = data.get("pid")
    if isinstance(pid, int) and alive(pid):
        return data
    with contextlib.suppress(InputError):
        remove_tree(folder / name, root=Root(folder))
    return None


def _started(entry: dict[str, Any]) -> float:
    started = entry.get("started")
    return float(started) if isinstance(started, int | float) else 0.0


def token_for(tcp: tuple[str, int]) -> str | None:
    """The token of the live daemon advertised on loopback address ``tcp``, if any."""
    try:
        folder = _folder()
        for name in _entries(folder):
            data = _read_entry(folder, name)
            if data is None or not isinstance(data.get("tcp"), list):
                continue
            host, port = data["tcp"]
            pid = data.get("pid")
            if (str(host), int(port)) == tcp and isinstance(pid, int) and alive(pid):
                token = data.get("token")
                return token if isinstance(token, str) else None
    except (DiscoveryError, OSError, ValueError, TypeError):
        return None
    return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def advertise(workspace: Path, endpoint: dict[str, Any]) -> Path:
    """Write the entry of this daemon (``endpoint`` may hold a ``token``); its path."""
    data = {
        "pid": os.getpid(),
        "workspace": str(workspace.resolve()),
        "started": time.time(),
        **endpoint,
    }
    folder = _folder(create=True)
    encoded = json.dumps(data).encode("utf-8")
    try:
        return write_bytes(entry_name(workspace), encoded, root=Root(folder), mode=0o600)
    except InputError as error:
        raise DiscoveryError(str(error)) from None


def withdraw(entry: Path) -> None:
    """Remove this daemon's entry (at its end)."""
    with contextlib.suppress(InputError):
        remove_tree(entry, root=Root(entry.parent))
