"""Where a shared daemon advertises itself, so clients find the daemon of a workspace.

A per-user folder (``$XDG_RUNTIME_DIR/perfline`` or ``<tmp>/perfline-<uid>``,
mode 0700) holds one ``daemon-<hash of workspace>.json`` per daemon with its
pid, workspace and endpoint (``tcp: [host, port]`` or ``socket: path``).
Entries of dead processes are removed when found. Standard library only, so
clients can import it without the daemon's dependencies.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any


def runtime_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = (
        Path(base) / "perfline" if base else Path(tempfile.gettempdir()) / f"perfline-{os.getuid()}"
    )
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(folder, 0o700)
    return folder


def registry_file(workspace: Path) -> Path:
    digest = hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:16]
    return runtime_dir() / f"daemon-{digest}.json"


def find_daemon(workspace: Path) -> dict[str, Any] | None:
    """The advertised endpoint of a live daemon serving ``workspace`` (or an ancestor)."""
    for folder in [workspace.resolve(), *workspace.resolve().parents]:
        entry = registry_file(folder)
        try:
            data = json.loads(entry.read_text())
        except (OSError, ValueError):
            continue
        pid = data.get("pid")
        if isinstance(pid, int) and alive(pid):
            return dict(data)
        with contextlib.suppress(OSError):
            entry.unlink()
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
    entry = registry_file(workspace)
    data = {"pid": os.getpid(), "workspace": str(workspace.resolve()), **endpoint}
    tmp = entry.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    os.chmod(tmp, 0o600)
    tmp.replace(entry)
    return entry
