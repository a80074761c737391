"""Where a shared daemon advertises itself, so clients find the daemon of a workspace.

A per-user private folder holds one ``daemon-<hash of workspace>.json`` per daemon with
its pid, workspace, endpoint (``tcp: [host, port]`` or ``socket: path``) and, for TCP,
the token a client presents first (``server.lsp.admission``). The folder is the first of
``$XDG_RUNTIME_DIR/perfline``, ``<tmp>/perfline-<uid>`` and
``$XDG_CACHE_HOME/perfline/run`` (``~/.cache/perfline/run``) that is, or can be made,
a real directory (not a symbolic link) owned by this user with mode 0700; one that
another user created first, or that is not a directory, is reported in one warning line
and skipped (the next one is used; clients look in the same order). A folder of this
user with a looser mode is tightened to 0700.

Clients only look: they create no folder. Entries are written as files of mode 0600
(created so, never loosened), through a temporary file renamed over the entry, relative
to the folder's descriptor, without following links; read only if they are regular files
of this user that nobody else may read or write. Entries of dead processes are removed
when found. Standard library only, so clients can import it without the daemon's
dependencies. Cost: a few system calls per look-up.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
#: The largest entry read (entries are about 300 bytes).
_MAX_ENTRY = 65536
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
            folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass  # inspected below, whoever made it
    except OSError as error:
        return f"cannot create it ({error.strerror})"
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


@contextlib.contextmanager
def _folder(*, create: bool = False) -> Iterator[int]:
    """A descriptor of the verified folder (checked again on the descriptor itself)."""
    folder = runtime_dir(create=create)
    descriptor = os.open(folder, _DIR_FLAGS)
    try:
        info = os.fstat(descriptor)
        if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
            raise DiscoveryError(f"{folder} changed while being opened")
        yield descriptor
    finally:
        os.close(descriptor)


def entry_name(workspace: Path) -> str:
    digest = hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:16]
    return f"daemon-{digest}.json"


def registry_file(workspace: Path) -> Path:
    """Where the entry of a daemon serving ``workspace`` goes (its folder verified)."""
    return runtime_dir() / entry_name(workspace)


def _read_entry(folder: int, name: str) -> dict[str, Any] | None:
    """An entry's data if it is a private regular file of this user, else ``None``."""
    try:
        descriptor = os.open(name, _READ_FLAGS, dir_fd=folder)
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_uid != os.getuid()
            or stat.S_IMODE(info.st_mode) & 0o077
            or info.st_size > _MAX_ENTRY
        ):
            log.warning("perfline: ignoring the discovery entry %s (not a private file)", name)
            return None
        data = json.loads(os.read(descriptor, _MAX_ENTRY).decode("utf-8"))
    except (OSError, ValueError):
        return None
    finally:
        os.close(descriptor)
    return data if isinstance(data, dict) else None


def find_daemon(workspace: Path) -> dict[str, Any] | None:
    """The advertised entry of a live daemon serving ``workspace`` (or an ancestor)."""
    try:
        with _folder() as folder:
            for path in [workspace.resolve(), *workspace.resolve().parents]:
                name = entry_name(path)
                data = _read_entry(folder, name)
                if data is None:
                    continue
                pid = data.get("pid")
                if isinstance(pid, int) and alive(pid):
                    return data
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=folder)
    except (DiscoveryError, OSError):
        return None
    return None


def token_for(tcp: tuple[str, int]) -> str | None:
    """The token of the live daemon advertised on loopback address ``tcp``, if any."""
    try:
        with _folder() as folder:
            for name in sorted(os.listdir(folder)):
                if not (name.startswith("daemon-") and name.endswith(".json")):
                    continue
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
    data = {"pid": os.getpid(), "workspace": str(workspace.resolve()), **endpoint}
    name = entry_name(workspace)
    temporary = f".{name}.{os.getpid()}.tmp"
    with _folder(create=True) as folder:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=folder)
        descriptor = os.open(temporary, _WRITE_FLAGS, 0o600, dir_fd=folder)
        try:
            os.write(descriptor, json.dumps(data).encode("utf-8"))
        finally:
            os.close(descriptor)
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    return runtime_dir(create=False) / name
