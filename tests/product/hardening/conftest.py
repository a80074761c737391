"""The hardening suite (issue 20): hostile clients and inputs against the real daemon.

Tests marked ``slow`` (the load and chaos test, the larger fuzz corpora) run in the
default test command too; ``-m "not slow"`` leaves them out while working.
"""

from __future__ import annotations

from typing import Any


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "slow: a long hardening test (load, chaos, fuzz)")
