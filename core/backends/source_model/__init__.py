"""What the backends that read a model file share (ONNX Runtime, static cost): the
``source_operator``, ``code_stack`` and ``nn_module`` entities of a model's canonical operators.
A shared package: backends may import it, it imports no backend but ``nx_common``'s entity
builders (themselves shared)."""
