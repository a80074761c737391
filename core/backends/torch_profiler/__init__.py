"""The torch.profiler backend: a trace ``torch.profiler`` wrote (``export_chrome_trace``,
``tensorboard_trace_handler``; ``.json`` or ``.json.gz``), and optionally the statement-level
sidecar ``perfline profile`` writes beside it -> a ``mode: "measured"`` standardized result with
CPU time, GPU kernel time, backward time and allocated memory on the user's source lines.
Pure: byte chunks in, records and results out, no torch needed; file reading is in
``perfline.server.ingest.torch_trace``."""
