"""The daemon's engine: one scheduler loop over typed events (see ``loop``).

``events`` (the closed union the loop consumes, and what listeners get),
``loop`` (the thread owning the mutable state), ``timer_queue`` (its timers),
``ground`` (files, content hashes, configuration), ``content_hashes``,
``bounded_reads`` (regular files only, size-limited), ``boundary`` (the workspace
boundary), ``results`` (what is served), ``memo_policy`` (every memo),
``runner`` (one run on a worker), ``job_table`` (run bookkeeping), ``outbox``
(delivery to listeners), ``idle_gate`` (``wait_idle``), ``run_counts``,
``engine_facade`` (``Engine``, the public surface; imported as
``perfline.server.engine``). Nothing here imports LSP or asyncio.
"""
