"""Baselines in the daemon: where they are kept, how they are read, and the comparisons.

* ``baseline_store``: the ``.perfline/baselines/`` folder (baselines set from the editor,
  and the source texts a baseline's lines refer to);
* ``baseline_reader``: a baseline document read as a bounded regular file inside the
  workspace, checked and post-processed;
* ``compare_service``: the comparisons of every job with its baseline, computed on a
  thread of their own and memoized, so no editor request waits for one.
"""
