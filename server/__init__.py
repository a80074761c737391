"""The daemon: workspace model, incremental engine, file watching and the
LSP/JSON-RPC layer. Imports ``perfline.core``; never imported by it.

Code map (data flows top to bottom):

* ``workspace`` - the folder on disk: file list, ``perfline.toml``, planned jobs;
* ``jobs/`` - the job types (standardized output, executorch, nx-estimator, capture),
  listed in ``jobs.registry``, and convention discovery; ``ingest/`` holds the
  backends' file readers;
* ``scheduler/`` - the engine: one loop thread over typed events, ground state (paths,
  content hashes, config), the result store, the memo policy, bounded reads and the
  workspace boundary; ``engine`` names its public surface; no LSP imports;
* ``index`` / ``figures`` / ``paths`` - (source file, line) -> code_line entries,
  the dominant figure and its share, trace paths -> workspace files;
* ``api`` - the versioned ``perfline/*`` JSON-RPC methods over an engine;
* ``edits`` / ``presentation`` - annotations that follow edits; hover and code lenses;
* ``settings`` - a client's hint settings (metric, format, share threshold) and labels;
* ``lsp`` - the pygls server of one connection; ``host`` - the shared engine and
  its watcher (``watcher``: watchdog); ``serve`` / ``discovery`` - stdio, loopback
  TCP and Unix-socket transports, and how clients find a running daemon.
"""
