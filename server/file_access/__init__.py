"""The one way the CLI and the daemon read and write files.

Every file read and written by ``perfline`` (job inputs, sources for reports and
baselines, configs, the baseline store, output files, discovery entries, the log) goes
through this package; ``tests/server/file_access/test_file_access_walk.py`` fails on a direct
``open``/``read_text``/``write_bytes``/``mkdir``/``os.replace``... anywhere else in
``core/``, ``server/`` or ``clients/`` (a short, reviewed allow-list holds the rest).

What it guarantees:

* **Inside a root.** A ``Root`` is the workspace (plus the extra roots the user allowed);
  a read resolves the path once and refuses a location outside every root, then opens
  the resolved path component by component with ``O_NOFOLLOW`` from the root's
  descriptor, so a link swapped in meanwhile is not followed (``roots``).
  ``Root.user_given()`` is for paths a person typed: opened as given.
* **Regular files only, bounded, with a deadline.** ``O_NONBLOCK`` opens (a FIFO cannot
  block the open), ``fstat`` on the descriptor (FIFO, device, socket, folder refused), a
  size limit per kind counted on the bytes actually read (``limits``), and the whole read
  on a daemon worker the caller stops waiting for after the time bound (``timed``): a
  file that never ends never holds a daemon thread, and ``SIGTERM`` still stops it.
* **Streams** for large inputs (``open_stream``): bounded raw bytes, gzip decompressed on
  the fly with a bound on the decompressed bytes, each chunk read with a deadline.
* **Writes never through a link** (``writes``): a fresh random name created with
  ``O_EXCL | O_NOFOLLOW`` beside the target, renamed over it (no ``fsync``); folders below
  the root made one by one, a folder that is a link refused; **a target that is a
  symbolic link is refused** (checked first; one that appears later is replaced by the
  rename, never written through).

Every refusal is a ``perfline.core.errors.InputError`` naming the file and what it is.
Standard library only (clients import it without the daemon's dependencies).
"""

from __future__ import annotations

from perfline.server.file_access.limits import (
    DEFAULT_LIMITS,
    DEFAULT_READ_SECONDS,
    SOURCE_LIMITS,
    Limits,
    file_key,
    input_kind,
    what_it_is,
)
from perfline.server.file_access.reads import FileRead, read_bytes, read_file, read_text
from perfline.server.file_access.roots import Root
from perfline.server.file_access.stream import BoundedStream, open_stream
from perfline.server.file_access.writes import (
    ReplacingFile,
    make_dirs,
    new_folder,
    open_append,
    remove_tree,
    rename,
    replacing,
    scratch_folder,
    write_bytes,
    write_text,
)

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_READ_SECONDS",
    "SOURCE_LIMITS",
    "BoundedStream",
    "FileRead",
    "Limits",
    "ReplacingFile",
    "Root",
    "file_key",
    "input_kind",
    "make_dirs",
    "new_folder",
    "open_append",
    "open_stream",
    "read_bytes",
    "read_file",
    "read_text",
    "remove_tree",
    "rename",
    "replacing",
    "scratch_folder",
    "what_it_is",
    "write_bytes",
    "write_text",
]
