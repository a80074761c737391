"""The daemon's job-type names, for the documentation tests (one place to follow a move of
the registry: today ``perfline.server.jobtypes.REGISTRY``, filled by importing
``perfline.server.backends``)."""

from __future__ import annotations


def known_backends() -> list[str]:
    """Every job type the daemon knows (``jobs[].backend`` values), sorted."""
    import perfline.server.backends  # noqa: F401  (registers the job types)
    from perfline.server.jobtypes import REGISTRY

    return sorted(REGISTRY)
