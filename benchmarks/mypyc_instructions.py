"""Instructions the post-processing of one NX-shaped document costs on this build (callgrind).

Runs ``valgrind --tool=callgrind`` twice on this interpreter: building the document of
``core_pipeline.nx_document(CHAINS)`` and post-processing it, then building it only (same
imports); the difference is ``postprocess``'s instructions. Run it with the Python of each build
(pure and compiled) to compare them, as docs/performance.md's mypyc figure does:
``python benchmarks/mypyc_instructions.py [CHAINS]`` (default 1,000). Prints figures; asserts
nothing. Needs valgrind. Cost: about a minute per run on the pure build at 1,000 chains.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
_CHILD = """
import sys
sys.path.insert(0, {here!r})
from core_pipeline import nx_document
document = nx_document(int(sys.argv[1]))
from perfline.core.pipeline import postprocess
if sys.argv[2] == "yes":
    postprocess(document)
"""


def _count(chains: int, process: bool) -> int:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable]
    command += ["-c", _CHILD.format(here=str(HERE)), str(chains), "yes" if process else "no"]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, cwd="/", capture_output=True, text=True, env=env, check=False)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"callgrind failed: {done.stderr.strip()[-300:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    from perfline.build_info import core_build

    chains = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    whole, without = _count(chains, True), _count(chains, False)
    print(f"build: {core_build()}; NX-shaped document of {chains} chains")
    print(f"whole process {whole:,}, without postprocess {without:,}")
    print(f"postprocess: {whole - without:,} instructions")


if __name__ == "__main__":
    main()
