"""The pure parts of ``perfline batch`` (``docs/batch.md``): a processed document to the rows
the store keeps (``rows``), the structure an aggregate is built on (``structure``), a run's
content hash (``content``), and the aggregate document built from the statistics of many
runs (``aggregate``). No file, clock or database here: the store, the executor and DuckDB
live in ``perfline.clients.batch``.
"""
