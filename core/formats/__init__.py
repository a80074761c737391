"""Canonical source_operator identities and code-stack provenance, one module per model format.

* ``identity`` — the shared records (``SourceOperator``, ``SourceFrame``, ``ModuleFrame``) and
  the stack-trace / module-stack / ExecuTorch-label parsers;
* ``onnx`` (+ ``_protobuf``), ``pt2``, ``tosa`` (flatbuffer via ``_flatbuf``, and MLIR text),
  ``vgf`` (+ ``spirv``) — one reader per format, each a pure function from bytes to frozen records
  raising ``InputError`` (file, byte offset / JSON path / line, what was expected);
* ``models`` — recognise a model file's format and list its canonical operators.
"""
