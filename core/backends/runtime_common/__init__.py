"""What the measured runtime backends (ExecuTorch, ONNX Runtime) share: statistics of per-run
samples. A shared package: backends may import it, it imports no backend."""
