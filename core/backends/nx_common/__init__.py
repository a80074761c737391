"""Shared construction of NX results from stripes, chains and cascades.

Both NX backends (the performance estimator and measured profiling) reduce their
inputs to the records of ``records`` -- per-stripe figures plus the debug
database's stripe -> chain/cascade -> fused -> TOSA-operation links -- and hand
them to ``view.build_segments_view``, which builds the entities, the authoritative
chain and cascade breakdowns, the declared ``entity_kinds`` and per-segment totals.
Everything here is pure: no file I/O, no clock.
"""
