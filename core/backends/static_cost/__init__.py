"""The static-cost backend: from an ONNX, PT2 or TOSA model alone, per-operator MACs, FLOPs,
parameter and activation bytes from the tensor shapes, and an optional roofline time for a
target the user names (``mode: "predicted"``, producer ``perfline-static``). Pure."""
