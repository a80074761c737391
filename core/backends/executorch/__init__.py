"""The ExecuTorch measured-profiling backend: ETRecord (zip of JSON graphs) and
ETDump (flatbuffer of runtime events) -> a ``mode: "measured"`` standardized
result with per-operator runtime statistics, code stacks and module stacks.
Pure: bytes in, records and results out; the file reading is in
``perfline.server.ingest.executorch``."""
