"""The daemon's job-type names, for the documentation tests (one place to follow a move of
the registry: today ``perfline.server.jobs.registry.JOB_TYPES``)."""

from __future__ import annotations


def known_backends() -> list[str]:
    """Every job type the daemon knows (``jobs[].backend`` values), sorted."""
    from perfline.server.jobs.registry import default_registry

    return sorted(default_registry())
