"""Every conformance case gives exactly the expected document.

``*.expected.json`` is bare core behaviour (``--no-default-collapse``);
``random/nt-defaults/*.expected.json`` is perfline's default for NX
producers. An expected ``{"error_type", "message"}`` means the input must be
rejected with that message. Documented deviations (docs/deviations.md) are
applied to the expectation before comparing, and D6 is undone by running in
``float_sums="reference"`` mode.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfline.core.collapse_rules import parse_rule
from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings, postprocess
from tests.support.cases import CASES, canonical
from tests.support.deviations import strip_deviations


def _inputs(folder: str) -> list[Path]:
    return sorted(
        p for p in (CASES / folder).glob("*.json") if not p.name.endswith(".expected.json")
    )


def _settings(case: Path, *, defaults: bool) -> PipelineSettings:
    args_file = case.with_suffix(".args")
    args = args_file.read_text().split() if args_file.exists() else []
    rules = []
    use_defaults = defaults
    index = 0
    while index < len(args):
        if args[index] == "--collapse":
            rules.append(parse_rule(args[index + 1]))
            index += 2
        elif args[index] == "--nt-defaults":
            use_defaults = True
            index += 1
        else:
            raise AssertionError(f"unknown case argument {args[index]!r} in {args_file}")
    # the reference's float arithmetic: deviation D6 (exact sums) undone
    return PipelineSettings(
        collapse_rules=tuple(rules), use_backend_defaults=use_defaults, float_sums="reference"
    )


def _check(case: Path, expected_file: Path, settings: PipelineSettings) -> None:
    document = json.loads(case.read_text())
    expected = json.loads(expected_file.read_text())
    if set(expected) == {"error_type", "message"}:
        with pytest.raises(InputError) as caught:
            postprocess(document, settings, source=case.name)
        assert expected["message"] in caught.value.render()
        return
    processed = postprocess(document, settings, source=case.name)
    assert canonical(strip_deviations(processed)) == canonical(expected)
    again = postprocess(json.loads(json.dumps(processed)), settings, source="mlia-output.json")
    assert canonical(again) == canonical(processed), (
        "perfline's own output must come back unchanged"
    )


@pytest.mark.parametrize("case", _inputs("worked") + _inputs("probes"), ids=lambda p: p.stem)
def test_core_case(case: Path) -> None:
    _check(case, case.with_name(case.stem + ".expected.json"), _settings(case, defaults=False))


@pytest.mark.parametrize("case", _inputs("random"), ids=lambda p: p.stem)
def test_random_case_bare_core(case: Path) -> None:
    _check(case, case.with_name(case.stem + ".expected.json"), _settings(case, defaults=False))


@pytest.mark.parametrize("case", _inputs("random"), ids=lambda p: p.stem)
def test_random_case_nx_defaults(case: Path) -> None:
    expected = case.parent / "nt-defaults" / (case.stem + ".expected.json")
    _check(case, expected, _settings(case, defaults=True))


def test_every_case_is_run() -> None:
    assert len(_inputs("worked")) >= 11
    assert len(_inputs("probes")) == 14
    assert len(_inputs("random")) == 50
