"""A seeded mutation corpus built from the real fixtures of ``tests/data`` and the readers
(job types) they feed.

``SUBJECTS`` names, for each reader, the job type that runs it, the real files of one
job and the file that is mutated. ``mutations`` derives damaged versions of its bytes:
bit flips, truncations, length fields overwritten (4-byte words and varint runs), and,
for JSON (and the JSON members of zip archives), nesting 100,000 deep, an integer of
5,001 digits and ``NaN``; zip archives also get a JSON member that inflates to 1 GiB (a
zip bomb). Everything is a pure function of the seed, so a failure names the seed and
the operation that reproduce it.
"""

from __future__ import annotations

import functools
import io
import random
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.locations import DATA
from tests.support.server_helpers import INPUT_DOC, KWS

FORMATS = DATA / "formats" / "dscnn"
NX = DATA / "nx_estimator"
ORT = DATA / "onnxruntime"


@dataclass(frozen=True)
class Subject:
    """One reader under test: ``files`` (workspace-relative name -> source file) of a job
    of ``job_type``; ``target``: the file mutated; ``kind``: ``binary``, ``json``, ``zip``."""

    name: str
    job_type: str
    files: dict[str, Path]
    target: str
    kind: str
    options: dict[str, object] = field(default_factory=dict)


_KWS_PAIR = {
    "x.etrecord": KWS / "dscnn_portable.etrecord",
    "x.etdump": KWS / "dscnn_portable.etdump",
}
#: A matched pair of estimator databases (their model's VGF is not in the fixtures).
_ESTIMATOR = {
    "m_performance_database.dat": NX / "ds_cnn_large_fully_quantized_int8_performance_database.dat",
    "m_debug_database.dat": NX / "ds_cnn_large_fully_quantized_int8_debug_database.dat",
}
_ORT = {"dscnn.onnx": FORMATS / "dscnn.onnx", "dscnn_opt.json": ORT / "dscnn_opt.json"}

SUBJECTS = (
    Subject("etdump", "executorch", _KWS_PAIR, "x.etdump", "binary"),
    Subject("etrecord", "executorch", _KWS_PAIR, "x.etrecord", "zip"),
    Subject(
        "estimator-performance", "nx-estimator", _ESTIMATOR, "m_performance_database.dat", "binary"
    ),
    Subject("estimator-debug", "nx-estimator", _ESTIMATOR, "m_debug_database.dat", "binary"),
    Subject("onnx", "static", {"dscnn.onnx": FORMATS / "dscnn.onnx"}, "dscnn.onnx", "binary"),
    Subject("pt2", "static", {"dscnn.pt2": FORMATS / "dscnn.pt2"}, "dscnn.pt2", "zip"),
    Subject(
        "tosa", "static", {"dscnn_int.tosa": FORMATS / "dscnn_int.tosa"}, "dscnn_int.tosa", "binary"
    ),
    Subject("ort-profile", "onnxruntime", _ORT, "dscnn_opt.json", "json"),
    Subject("ort-model", "onnxruntime", _ORT, "dscnn.onnx", "binary"),
    Subject("standardized", "standardized", {"a.mlia.json": INPUT_DOC}, "a.mlia.json", "json"),
    # Captures are written by the tests from the real DS-CNN VGF, which is read with them.
    Subject("capture", "capture", {}, "capture.json", "json"),
    Subject("capture-statistics", "capture", {}, "statistics_mode1.bin", "binary"),
    Subject("vgf", "capture", {}, "model.vgf", "binary"),
)

Mutation = tuple[str, bytes]


def mutations(data: bytes, kind: str, seed: int, count: int) -> Iterator[Mutation]:
    """``count`` damaged versions of ``data`` (name, bytes), the same for the same seed."""
    rng = random.Random(seed)
    special: list[Callable[[], Mutation]] = []
    if kind == "json":
        special = [functools.partial(_json_damage, data, how) for how in ("nest", "digits", "nan")]
    elif kind == "zip":
        special = [functools.partial(_zip_bomb, data)]
        special += [functools.partial(_zip_member, data, how, rng) for how in ("nest", "digits")]
    operations = [_flip, _truncate, _length_word, _varint_run]
    for number in range(count):
        if number < len(special):
            yield special[number]()
            continue
        name, damaged = rng.choice(operations)(data, rng)
        if damaged == data:  # two flips of one bit, a word overwritten by itself
            name, damaged = _truncate(data, rng)
        yield name, damaged


def _flip(data: bytes, rng: random.Random) -> Mutation:
    damaged = bytearray(data)
    bits = rng.randint(1, 16)
    for _ in range(bits):
        position = rng.randrange(len(damaged))
        damaged[position] ^= 1 << rng.randrange(8)
    return f"flip {bits} bits", bytes(damaged)


def _truncate(data: bytes, rng: random.Random) -> Mutation:
    cut = rng.randrange(len(data))
    return f"truncate at {cut}", data[:cut]


def _length_word(data: bytes, rng: random.Random) -> Mutation:
    """A 4-byte little-endian word (flatbuffer offsets, vector lengths) made huge."""
    if len(data) < 8:
        return _truncate(data, rng)
    offset = rng.randrange(0, len(data) - 4, 4)
    value = rng.choice([0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, len(data) * 2, rng.getrandbits(32)])
    damaged = data[:offset] + value.to_bytes(4, "little") + data[offset + 4 :]
    return f"length word at {offset} = {value:#x}", damaged


def _varint_run(data: bytes, rng: random.Random) -> Mutation:
    """A run of 0xFF bytes (protobuf varint lengths that never end, huge sizes)."""
    offset = rng.randrange(len(data))
    run = rng.randint(1, 10)
    return f"0xff x{run} at {offset}", data[:offset] + b"\xff" * run + data[offset + run :]


_NUMBER = re.compile(rb"(?<=[:\[,\s])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?=[,\]}\s])")


def _json_damage(data: bytes, how: str) -> Mutation:
    if how == "nest":  # a new first element of the first array: valid JSON, 100,000 deep
        start = data.index(b"[") + 1
        return "nested 100,000 deep", data[:start] + b"[" * 100_000 + b"]" * 100_000 + b"," + data[
            start:
        ]
    match = _NUMBER.search(data)
    assert match is not None, "a JSON fixture without a number"
    value = b"7" * 5001 if how == "digits" else b"NaN"
    name = "an integer of 5,001 digits" if how == "digits" else "NaN for a number"
    return name, data[: match.start()] + value + data[match.end() :]


def _zip_member(data: bytes, how: str, rng: random.Random) -> Mutation:
    """A JSON member of the archive damaged as ``_json_damage`` does."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = [(info, archive.read(info)) for info in archive.infolist()]
    candidates = [
        i
        for i, (_, body) in enumerate(members)
        if body[:1] in (b"{", b"[") and b"[" in body and _NUMBER.search(body)
    ]
    chosen = rng.choice(candidates)
    label, damaged = _json_damage(members[chosen][1], how)
    members[chosen] = (members[chosen][0], damaged)
    return f"{members[chosen][0].filename}: {label}", _rezip(members)


@functools.lru_cache(maxsize=4)
def _zip_bomb(data: bytes) -> Mutation:
    """The largest JSON member replaced by 1 GiB of zeros (deflated to about 4.5 MB):
    beyond what a reader may inflate, which it must see before inflating."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = [(info, archive.read(info)) for info in archive.infolist()]
    json_members = [i for i, (_, body) in enumerate(members) if body[:1] in (b"{", b"[")]
    chosen = max(json_members, key=lambda i: len(members[i][1]))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for index, (info, body) in enumerate(members):
            if index != chosen:
                archive.writestr(info.filename, body)
                continue
            with archive.open(info.filename, "w", force_zip64=True) as member:
                zeros = bytes(1 << 20)
                for _ in range(1024):
                    member.write(zeros)
    return f"{members[chosen][0].filename}: a 1 GiB zip bomb", out.getvalue()


def _rezip(members: list[tuple[zipfile.ZipInfo, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, body in members:
            archive.writestr(info.filename, body, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()
