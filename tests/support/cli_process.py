"""``perfline analyze`` run as users run it: a child process of this Python (tests only).

``analyze(folder, *arguments)`` runs ``python -m perfline analyze ARGUMENTS --output-dir FOLDER``
in ``folder`` and returns the completed process (exit status, stdout, stderr as text); the
exit codes and one-line messages are what the tests read.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def analyze(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """The completed ``perfline analyze`` run (two minutes at the most)."""
    return subprocess.run(
        [sys.executable, "-m", "perfline", "analyze", *arguments, "--output-dir", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=folder,
    )
