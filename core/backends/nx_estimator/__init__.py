"""The NX performance estimator backend (estimator mode).

Readers turn the estimator's files into typed records (``performance_db``,
``debug_db``, ``summary``); ``result`` builds the authoritative performance
result with the shared NX construction of ``perfline.core.backends.nx_common``;
``compatibility`` builds the placement checks; ``advice`` holds the static
advice; ``statistics`` the ``nx_performance_statistics.json`` content. All pure.
"""

PRODUCER = "nx-performance-estimator"
