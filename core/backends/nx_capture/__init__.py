"""NX structured captures (measured mode): strict readers of the capture JSON
files, statistics info and debug databases, numpy decoders of the mode 0 / mode
1 neural statistics, dispatch selection and the aggregation into stripes,
chains, cascades and model totals (through ``nx_common``). Pure; the file
reading is in ``perfline.server.ingest.capture``."""
