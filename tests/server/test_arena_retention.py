"""The daemon's arena cache (``server.arena_retention``, ``server/arena_cache.c``): the
compiled build has it, freed arenas are kept up to the limit and handed out again, a
limit of 0 gives them all back, and the pure build does nothing. Run in child
processes: the cache is process-wide."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from typing import Any

import pytest

from perfline.build_info import core_build
from perfline.server import arena_retention

pytestmark = pytest.mark.timeout(120)

_CHURN = """
import json, sys
from perfline.server.arena_retention import retain_freed_arenas, stats
limit = retain_freed_arenas(int(sys.argv[1]))
seen = {"limit": limit, "installed": stats()}
rows = [{"name": str(i), "value": i} for i in range(300_000)]  # about 100 MB of small objects
del rows
seen["freed"] = stats()
rows = [{"name": str(i), "value": i} for i in range(300_000)]
seen["again"] = stats()
del rows
retain_freed_arenas(0)
seen["off"] = stats()
print(json.dumps(seen))
"""


def _churn(limit_mb: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHURN, str(limit_mb)],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_the_compiled_build_has_the_arena_cache() -> None:
    assert arena_retention.available() == (core_build() == "compiled (mypyc)")


@pytest.mark.skipif(not arena_retention.available(), reason="the pure build has no arena cache")
def test_freed_arenas_are_kept_up_to_the_limit_and_reused() -> None:
    seen = _churn(32)
    assert seen["limit"] == 32
    arena = seen["freed"]["arena_bytes"]
    assert arena > 0 and seen["freed"]["capacity"] == (32 << 20) // arena
    assert seen["freed"]["kept"] == seen["freed"]["capacity"]  # ~100 MB freed: 32 MiB kept
    again = seen["again"]
    assert again["reused"] - seen["freed"]["reused"] >= seen["freed"]["kept"]  # handed out first
    assert again["kept"] == 0
    assert seen["off"]["kept"] == 0 and seen["off"]["capacity"] == 0


@pytest.mark.skipif(not arena_retention.available(), reason="the pure build has no arena cache")
def test_a_limit_of_zero_keeps_nothing() -> None:
    seen = _churn(0)
    assert seen["limit"] == 0
    assert seen["freed"]["kept"] == 0 and seen["freed"]["reused"] == 0


@pytest.mark.skipif(arena_retention.available(), reason="the compiled build has the cache")
def test_the_pure_build_does_nothing() -> None:
    assert arena_retention.retain_freed_arenas(64) == 0
    assert arena_retention.stats() == {}


def test_the_limit_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    read = arena_retention._limit_from_environment
    monkeypatch.delenv(arena_retention.ENVIRONMENT_VARIABLE, raising=False)
    assert read() == arena_retention.DEFAULT_LIMIT_MB
    monkeypatch.setenv(arena_retention.ENVIRONMENT_VARIABLE, "0")
    assert read() == 0
    monkeypatch.setenv(arena_retention.ENVIRONMENT_VARIABLE, " 128 ")
    assert read() == 128
    monkeypatch.setenv(arena_retention.ENVIRONMENT_VARIABLE, "lots")
    with caplog.at_level(logging.WARNING):
        assert read() == arena_retention.DEFAULT_LIMIT_MB
    assert "PERFLINE_ARENA_CACHE_MB='lots' is not a whole number" in caplog.text
