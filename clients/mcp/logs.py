"""``perfline mcp``'s log on standard error, which the agent's client keeps in its own log:
one plain line per record, in the daemon's record format (a message's line breaks and a
traceback folded into `` | ``), WARNING and up (a job's failure, a problem of
``perfline.toml``), INFO and up with ``-v`` (each run's phases, the SDK's requests).

Installed before the SDK's server is built: its own set-up (``rich``, wrapped at 80 columns,
the source file at the right) then finds the root logger configured and adds nothing.
Cost: one handler.
"""

from __future__ import annotations

import logging
import sys

#: The daemon's record format (``perfline serve``'s log file and standard error).
RECORD_FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"


class OneLine(logging.Formatter):
    """A record on one line: its line breaks (a traceback's too) folded into `` | ``."""

    def format(self, record: logging.LogRecord) -> str:
        return " | ".join(line for line in super().format(record).splitlines() if line.strip())


def log_to_stderr(verbose: bool) -> None:
    """Replace the root logger's handlers by one plain one-line handler on standard error."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine(RECORD_FORMAT))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO if verbose else logging.WARNING)
