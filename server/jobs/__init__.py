"""Job types: what a job's backend does with the bytes of its inputs.

``context`` (what a run gets: inputs, options, settings, memo, cancellation),
``stage_memo`` (the content-keyed memo of intermediate stages), one module per
job type (``standardized_job``, ``executorch_job``, ``estimator_job``,
``capture_job``) and ``registry`` (the list of job types, built in one place, and
convention discovery). Job types know nothing of the scheduler, watchers or LSP.
"""
