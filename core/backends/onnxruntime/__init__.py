"""The ONNX Runtime measured backend: an ONNX model and the profiles ONNX Runtime wrote for it
(``SessionOptions.enable_profiling``) -> a ``mode: "measured"`` standardized result with
per-node runtime statistics mapped back to the model's nodes, code stacks and module stacks.
Pure: bytes in, records and results out; file reading is in
``perfline.server.ingest.onnxruntime``."""
