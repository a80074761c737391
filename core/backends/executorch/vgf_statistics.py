"""VGF neural statistics carried in an ETDump (``VGF_NEURAL_STATISTICS`` events).

The event's delegate metadata is a UTF-8 JSON wrapper (``schema``
``executorch.vgf.neural_statistics``, ``schema_version`` 1 or 2) with, per
segment, three base64 blobs: ``debug_database``, ``statistics_info`` and
``statistics_memory`` -- the same artifacts as a structured capture's
``debug_database.bin``, ``neural_statistics_info`` and
``statistics_mode<N>.bin``, so the capture decoders apply.

Effective decoder settings: schema 2 gives the mode
(``statistics_mode.executorch_index``) and the device (``target.device_name``,
else ``counter_layout.schema_id``); schema 1 gives neither, so the mode is
assumed to be 1 (the VGF backend's documented default) and the counter
layout Mali-G2's; both assumptions are recorded. ``leading_block_count`` is
recorded but not applied (its meaning is undocumented).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from perfline.core.backends.nx_common.counters import (
    GENERATIONS,
    MALI_G2,
    counter_layout,
    device_generation,
)
from perfline.core.backends.nx_common.debug_database import debug_links
from perfline.core.backends.nx_common.records import SegmentInput, SegmentSpirv
from perfline.core.backends.nx_common.statistics_decoding import decode_statistics, stripe_rows
from perfline.core.backends.nx_common.statistics_info import read_statistics_info
from perfline.core.errors import InputError, Problem

SCHEMA = "executorch.vgf.neural_statistics"
DEFAULT_MODE = 1
BLOBS = ("debug_database", "statistics_info", "statistics_memory")


@dataclass(frozen=True)
class DecoderSettings:
    """The settings the statistics were decoded with, and what had to be assumed."""

    schema_version: int
    mode: int
    generation: str
    counter_layout: str
    words_per_task: int
    leading_block_count: int | None = None
    fallback_assumptions: tuple[str, ...] = ()

    def describe(self) -> dict[str, Any]:
        """The settings as result metadata."""
        described: dict[str, Any] = {
            "schema_version": self.schema_version,
            "mode": self.mode,
            "profiling_device": self.generation,
            "counter_layout": self.counter_layout,
            "words_per_task": self.words_per_task,
            "fallback_assumptions": list(self.fallback_assumptions),
        }
        if self.leading_block_count is not None:
            described["leading_block_count"] = self.leading_block_count
            described["leading_block_count_applied"] = False
        return described


@dataclass(frozen=True)
class DecodedPayload:
    """The decoded segments of one payload (empty when statistics were unavailable)."""

    settings: DecoderSettings
    segments: tuple[SegmentInput, ...]
    warnings: tuple[str, ...] = field(default_factory=tuple)


def decode_payload(
    data: bytes,
    *,
    source: str,
    where: str,
    spirv: Mapping[int, SegmentSpirv] | None = None,
    segment_names: Mapping[int, str] | None = None,
    operations_source: str | None = None,
) -> DecodedPayload:
    """Decode one ``VGF_NEURAL_STATISTICS`` payload into NX segments.

    ``operations_source`` names where ``spirv`` comes from (the companion model), in
    messages about the two not belonging together.
    """
    wrapper = _wrapper(data, source, where)
    settings = _settings(wrapper, source, where)
    warnings: list[str] = []
    if not (wrapper.get("available") and wrapper.get("data_available")):
        reason = wrapper.get("reason") or "no reason given"
        warnings.append(f"VGF neural statistics are unavailable in the ETDump: {reason}")
        return DecodedPayload(settings, (), tuple(warnings))
    layout = counter_layout(settings.generation, settings.mode, source)
    segments: list[SegmentInput] = []
    raw_segments = wrapper.get("segments")
    if not isinstance(raw_segments, list):
        raise InputError(source, Problem(f"{where} $.segments", "expected an array"))
    for position, raw in enumerate(raw_segments):
        at = f"{where} $.segments[{position}]"
        if not isinstance(raw, Mapping) or not isinstance(raw.get("segment_id"), int):
            raise InputError(source, Problem(at, "expected an object with an integer segment_id"))
        index = raw["segment_id"]
        blobs = {name: _blob(raw.get(name), source, f"{at}.{name}") for name in BLOBS}
        if any(blob is None for blob in blobs.values()):
            missing = [name for name, blob in blobs.items() if blob is None]
            warnings.append(
                f"VGF segment {index}: statistics blob(s) {', '.join(missing)} unavailable; "
                "segment skipped"
            )
            continue
        info_blob, info_text = blobs["statistics_info"] or (b"", False)
        info = read_statistics_info(
            info_blob, f"{source} ({at}.statistics_info)", is_text=info_text
        )
        memory = (blobs["statistics_memory"] or (b"", False))[0]
        decoded = decode_statistics(memory, layout, f"{source} ({at}.statistics_memory)")
        rows = stripe_rows(
            decoded,
            info,
            statistics_source=f"{source} ({at}.statistics_memory)",
            info_source=f"{source} ({at}.statistics_info)",
        )
        database = (blobs["debug_database"] or (b"", False))[0]
        links = debug_links(
            database, [row.stripe_id for row in rows], f"{source} ({at}.debug_database)"
        )
        name = (segment_names or {}).get(index, f"segment_{index}")
        segments.append(
            SegmentInput(
                index,
                name,
                rows,
                links,
                (spirv or {}).get(index),
                f"{source} ({at}.debug_database)",
                operations_source,
            )
        )
    return DecodedPayload(settings, tuple(segments), tuple(warnings))


def _wrapper(data: bytes, source: str, where: str) -> Mapping[str, Any]:
    try:
        wrapper = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise InputError(
            source, Problem(where, f"VGF_NEURAL_STATISTICS metadata is not JSON: {error}")
        ) from None
    if not isinstance(wrapper, Mapping) or wrapper.get("schema") != SCHEMA:
        raise InputError(source, Problem(f"{where} $.schema", f"expected {SCHEMA!r}"))
    if wrapper.get("schema_version") not in (1, 2):
        raise InputError(
            source,
            Problem(
                f"{where} $.schema_version",
                f"expected 1 or 2, got {wrapper.get('schema_version')!r}",
            ),
        )
    return wrapper


def _settings(wrapper: Mapping[str, Any], source: str, where: str) -> DecoderSettings:
    version = int(wrapper["schema_version"])
    fallbacks: list[str] = []
    mode = DEFAULT_MODE
    generation = MALI_G2
    leading: int | None = None
    if version == 1:
        fallbacks.append(
            "schema 1 records no statistics mode: assumed mode 1 (the VGF backend's default)"
        )
        fallbacks.append("schema 1 records no target device: assumed the Mali-G2 counter layout")
    else:
        statistics_mode = wrapper.get("statistics_mode")
        index = (
            statistics_mode.get("executorch_index")
            if isinstance(statistics_mode, Mapping)
            else None
        )
        if index in (0, 1):
            mode = int(index)
        else:
            fallbacks.append("statistics_mode missing or invalid: assumed mode 1")
        target = wrapper.get("target")
        layout = wrapper.get("counter_layout")
        schema_id = layout.get("schema_id") if isinstance(layout, Mapping) else None
        if isinstance(layout, Mapping) and isinstance(layout.get("leading_block_count"), int):
            leading = layout["leading_block_count"]
        if (
            isinstance(target, Mapping)
            and target.get("available")
            and isinstance(target.get("device_name"), str)
        ):
            vendor = target.get("vendor_id")
            generation = device_generation(
                target["device_name"],
                vendor if isinstance(vendor, int) else 0x13B5,
                source,
                f"{where} $.target",
            )
        elif isinstance(schema_id, str) and _generation_of(schema_id):
            generation = _generation_of(schema_id) or MALI_G2
        else:
            fallbacks.append("no target device or counter layout: assumed Mali-G2")
    layout_info = counter_layout(generation, mode, source)
    return DecoderSettings(
        schema_version=version,
        mode=mode,
        generation=generation,
        counter_layout=layout_info.schema_id,
        words_per_task=layout_info.words_per_task,
        leading_block_count=leading,
        fallback_assumptions=tuple(fallbacks),
    )


def _generation_of(schema_id: str) -> str | None:
    for generation in GENERATIONS:
        if f".{generation.lower()}." in schema_id.lower():
            return generation
    return None


def _blob(value: Any, source: str, where: str) -> tuple[bytes, bool] | None:
    if not isinstance(value, Mapping) or not value.get("available"):
        return None
    if value.get("encoding", "base64") != "base64" or not isinstance(value.get("data"), str):
        raise InputError(source, Problem(where, "expected base64 'data'"))
    try:
        data = base64.b64decode(value["data"], validate=True)
    except (binascii.Error, ValueError) as error:
        raise InputError(source, Problem(f"{where}.data", f"invalid base64: {error}")) from None
    size = value.get("size")
    if isinstance(size, int) and size != len(data):
        raise InputError(
            source,
            Problem(f"{where}.size", f"declares {size} bytes but the data holds {len(data)}"),
        )
    return data, bool(value.get("is_text"))
