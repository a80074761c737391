"""Estimator databases of another model than the VGF: exit 2 with counts, or a warning.

The real mismatch: the project's DS-CNN-S VGF (``dscnn_int_dbg.vgf`` with debug names, and the
plain ``dscnn_int.vgf`` of the same TOSA file) read with Arm's DS-CNN-L estimator databases,
whose labels are TFLite names (``model/re_lu/Relu``, ``Identity``). Counts and labels are read
from the databases here with the ``csv`` module, independently of perfline's readers.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from perfline.server.engine import Engine
from tests.support.cli_process import analyze
from tests.support.estimator_outputs import NAME, write_outputs
from tests.support.nx_estimator_data import DATA, DEBUG_DB, DSCNN_VGF, PERFORMANCE_DB

PLAIN_VGF = DATA.parent / "formats" / "dscnn" / "dscnn_int.vgf"  # same TOSA, no debug info


def _table(path: Path, table: str) -> list[list[str]]:
    """The rows (header first) of one CDATA table, read with the csv module."""
    text = path.read_text()
    start = text.index(f'<table name="{table}">')
    body = text[text.index("<![CDATA[", start) + 9 : text.index("]]>", start)]
    reader = csv.reader(io.StringIO(body.strip()), skipinitialspace=True)
    return [[cell.strip().strip('"') for cell in row] for row in reader if row]


def _dscnn_l_chains() -> tuple[list[str], list[str]]:
    """The DS-CNN-L chains in order of first stripe, and the first two labels they carry."""
    chain_of = {row[0]: row[1] for row in _table(DEBUG_DB, "stripe_op_id")[1:]}
    fused_of = {row[0]: row[1].split(";") for row in _table(DEBUG_DB, "chain_op_id")[1:]}
    tosa_of = {row[0]: row[1].split(";") for row in _table(DEBUG_DB, "fused_op_id")[1:]}
    label_of = {row[0]: row[2].strip(";") for row in _table(DEBUG_DB, "tosa_op_id")[1:]}
    chains = list(
        dict.fromkeys(chain_of[row[0]] for row in _table(PERFORMANCE_DB, "performance")[1:])
    )
    labels: list[str] = []
    for chain in chains:
        for fused in filter(None, fused_of[chain]):
            for tosa in filter(None, tosa_of[fused]):
                if label_of[tosa] not in labels:
                    labels.append(label_of[tosa])
    return chains, labels[:2]


def _expected_error(vgf: Path) -> str:
    chains, labels = _dscnn_l_chains()
    assert len(chains) == 27
    return (
        f"error: {DEBUG_DB}: 0 of {len(chains)} estimator chains matched an operation of {vgf} "
        f"(e.g. chain/segment_0/{chains[0]}: its labels ({labels[0]!r}) name no operation of it; "
        f"chain/segment_0/{chains[1]}: its labels ({labels[0]!r}) name no operation of it; "
        f"chain/segment_0/{chains[2]}: its labels ({labels[0]!r}) name no operation of it; "
        f"... ({len(chains) - 3} more)); the databases are of another model (or of another "
        "conversion of it)"
    )


@pytest.mark.parametrize("vgf", [DSCNN_VGF, PLAIN_VGF], ids=["debug-names", "plain"])
def test_dscnn_s_vgf_with_dscnn_l_databases_exits_2(tmp_path: Path, vgf: Path) -> None:
    completed = analyze(tmp_path, str(vgf), str(PERFORMANCE_DB), str(DEBUG_DB))
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.strip().splitlines() == [_expected_error(vgf)]
    assert not (tmp_path / "mlia-output").exists()


def test_compatibility_of_the_mismatched_pair_exits_2(tmp_path: Path) -> None:
    completed = analyze(
        tmp_path, str(DSCNN_VGF), str(PERFORMANCE_DB), str(DEBUG_DB), "--compatibility"
    )
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.strip().splitlines() == [_expected_error(DSCNN_VGF)]


def test_databases_alone_are_not_judged(tmp_path: Path) -> None:
    """Without a VGF nothing can match: the databases' own result, as before."""
    completed = analyze(tmp_path, str(PERFORMANCE_DB), str(DEBUG_DB), "--json")
    assert completed.returncode == 0, completed.stderr
    warnings = json.loads(completed.stdout)["results"][0]["warnings"]
    assert not any("matched an operation" in warning for warning in warnings)


FOREIGN = "model/dense/BiasAdd"


def _foreign_chains(run: Path, chain_numbers: tuple[int, ...]) -> None:
    """Relabel every TOSA operation of the given chains with a label no VGF operation has."""
    debug = run / f"{NAME}_debug_database.dat"
    rows = {row[0]: row for row in _table(debug, "chain_op_id")[1:]}
    fused_rows = {row[0]: row for row in _table(debug, "fused_op_id")[1:]}
    tosa_ids = {
        tosa
        for number in chain_numbers
        for fused in filter(None, rows[str(number)][1].split(";"))
        for tosa in filter(None, fused_rows[fused][1].split(";"))
    }
    lines = debug.read_text().splitlines()
    in_tosa_table = False
    for position, line in enumerate(lines):
        if line.startswith("<table name="):
            in_tosa_table = line == '<table name="tosa_op_id">'
        head = line.split(", ")
        if in_tosa_table and head[0] in tosa_ids:
            lines[position] = f"{head[0]}, {head[1]}, {FOREIGN};"
    debug.write_text("\n".join(lines) + "\n")


def test_partly_matching_databases_warn_with_counts_and_cycles(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    write_outputs(run)
    foreign = (3001, 3002)
    _foreign_chains(run, foreign)
    performance = run / f"{NAME}_performance_database.dat"
    debug = run / f"{NAME}_debug_database.dat"
    chain_of = {row[0]: row[1] for row in _table(debug, "stripe_op_id")[1:]}
    cycles: dict[str, int] = {}
    for row in _table(performance, "performance")[1:]:
        cycles[chain_of[row[0]]] = cycles.get(chain_of[row[0]], 0) + int(row[2])
    total = sum(cycles.values())
    left = {number: cycles[str(number)] for number in foreign}
    listed = "; ".join(
        f"chain/segment_0/{number} ({value:,} cycles): its labels ({FOREIGN!r}) name no "
        "operation of it"
        for number, value in sorted(left.items(), key=lambda item: -item[1])
    )
    expected = (
        f"{len(cycles) - 2} of {len(cycles)} estimator chains matched an operation of "
        f"{DSCNN_VGF}; 2 of them ({sum(left.values()):,} of {total:,} cycles (total_cycles), "
        f"{sum(left.values()) / total * 100:.3g}%) are left unattributed: {listed}."
    )
    completed = analyze(tmp_path, str(DSCNN_VGF), str(run), "--json")
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)["results"][0]
    assert expected in result["warnings"]
    entities = {entity["id"]: entity for entity in result["entities"]}
    for number in foreign:  # the foreign chains link no source operator
        chain_id = f"chain/segment_0/{number}"
        assert not any(chain_id in e.get("parent_ids", []) for e in entities.values())
    text = analyze(tmp_path, str(DSCNN_VGF), str(run), "--compatibility", "--json")
    assert text.returncode == 0, text.stderr
    assert expected in json.loads(text.stdout)["results"][0]["warnings"]


def test_daemon_job_of_the_mismatched_pair_is_an_error(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    for source in (DSCNN_VGF, PERFORMANCE_DB, DEBUG_DB):
        shutil.copy(source, root / source.name)
    (root / "perfline.toml").write_text(
        '[[jobs]]\nname = "est"\nbackend = "nx-estimator"\n'
        f'inputs = ["{DSCNN_VGF.name}", "{PERFORMANCE_DB.name}", "{DEBUG_DB.name}"]\n'
    )
    engine = Engine(root, debounce=0.02, settle=0.1)
    engine.start()
    try:
        assert engine.wait_idle(60)
        info = engine.job("est")
        assert info is not None and info.state == "error" and not info.has_result
        assert info.error is not None
        assert "0 of 27 estimator chains matched an operation of" in info.error.message
        assert DEBUG_DB.name in str(info.error) and DSCNN_VGF.name in info.error.message
    finally:
        engine.close()
