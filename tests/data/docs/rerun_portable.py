"""Run the DS-CNN portable program again and keep its ETDump and the Inspector's reading of it.

    python rerun_portable.py PTE ETRECORD OUTDIR [RUNS]

PTE and ETRECORD are the shared fixtures' ``dscnn/executorch/portable/dscnn_portable.pte`` and
``.etrecord`` (the program and the ETRecord the example workspace's ETRecord was made from).
Writes ``OUTDIR/dscnn_portable_rerun.etdump`` (RUNS executions, default 10, with the same
calls as ``docs/guide.md``'s run snippet) and ``OUTDIR/dscnn_portable_rerun.inspector.json``
(ExecuTorch's own Inspector: per event its name, debug handles, per-run times in ms and stack
traces). Run with a venv holding ``torch==2.13.0 executorch==1.5.1``, from a folder holding
the model source ``dscnn.py`` (for ``example_inputs``).
"""

import json
import os
import sys

from executorch.devtools import Inspector
from executorch.extension.pybindings.portable_lib import _load_for_executorch

sys.path.insert(0, os.getcwd())
from dscnn import example_inputs  # noqa: E402

pte, etrecord, outdir = sys.argv[1:4]
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 10
etdump = os.path.join(outdir, "dscnn_portable_rerun.etdump")

module = _load_for_executorch(pte, enable_etdump=True, debug_buffer_size=0)
inputs = example_inputs()
for _ in range(runs):
    module.run_method("forward", inputs)
module.write_etdump_result_to_file(etdump, None)

inspector = Inspector(etdump_path=etdump, etrecord=etrecord)
report = {"event_blocks": []}
for block in inspector.event_blocks:
    events = []
    for event in block.events:
        perf = event.perf_data
        events.append(
            {
                "name": event.name,
                "instruction_id": event._instruction_id,
                "debug_handles": event.debug_handles,
                "op_types": event.op_types,
                "raw_ms": list(perf.raw) if perf else None,
                "stack_traces": event.stack_traces,
            }
        )
    report["event_blocks"].append({"name": block.name, "events": events})
with open(os.path.join(outdir, "dscnn_portable_rerun.inspector.json"), "w") as file:
    json.dump(report, file, indent=1, default=str)
