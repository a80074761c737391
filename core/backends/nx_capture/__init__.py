"""NX structured captures (measured mode): strict readers of the capture JSON files
(``capture_json``), dispatch selection and the aggregation into stripes, chains, cascades and
model totals (through ``nx_common``), and the capture's standardized document
(``capture_document``). The decoders of the statistics info, debug databases and mode 0 / mode 1
neural statistics are shared with ExecuTorch's VGF statistics and live in ``nx_common``
(``statistics_info``, ``debug_database``, ``counters``, ``statistics_decoding``). Pure; the file
reading is in ``perfline.server.ingest.capture``."""
