"""Whether an ETDump holds executions of the ETRecord's program (pure).

Every runtime observation except ``Method::execute`` is judged against the
selected method of the ETRecord, by what both files record:

* its instruction id must be an instruction of the method (its debug-handle
  map or delegate map); otherwise the programs differ outright (decisive);
* an operator event (``OPERATOR_CALL`` / ``native_call_*``) matches an
  instruction that is not a delegate call, and, when the ETDump names its
  kernel (``native_call_<op>.<variant>``), the edge-dialect operators of the
  instruction's debug handles include ``<op>`` (handles the edge graph does
  not know are not judged);
* a ``DELEGATE_CALL`` and every delegate-internal event match an instruction
  the ETRecord records as a delegate call (an internal identifier its
  delegate's map lacks is the delegate's own operation: ``unmapped``, not a
  mismatch).

The verdict is ``run_match``'s: an instruction the method does not have is
decisive (``InputError`` at that event); no observation matching ->
``InputError`` naming the ETDump and the ETRecord with the counts; some not
matching -> those stay unattributed (the result puts them on ``unmapped``
backend operators) and a warning gives the counts and their time in ms per
execution (delegate-internal time is inside its delegate call and not added
again).
Cost: O(observations + edge nodes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from perfline.core.backends.executorch.etrecord import ETRecord
from perfline.core.backends.executorch.events import (
    NATIVE_CALL_PREFIX,
    ROLE_DELEGATE,
    ROLE_DELEGATE_INTERNAL,
    ROLE_METHOD,
    EventKey,
    Observation,
    Timeline,
)
from perfline.core.backends.run_match import Evidence, Wording, judge_run


@dataclass(frozen=True)
class ProgramMatch:
    """The observations that do not belong to the ETRecord's method, and the warning."""

    unmatched: frozenset[EventKey]
    warning: str | None


def match_program(
    record: ETRecord,
    timeline: Timeline,
    method: str,
    *,
    etdump_source: str,
    etrecord_source: str,
) -> ProgramMatch:
    """Judge every observation (see the module docstring); the verdict is ``run_match``'s."""
    # Top-level events first: they name the program's instructions; delegate-internal ones
    # are inside their delegate call (no time of their own in the unattributed total).
    judged = sorted(
        (o for o in timeline.observations if o.key.role != ROLE_METHOD),
        key=lambda o: o.key.role == ROLE_DELEGATE_INTERNAL,
    )
    known = set(record.debug_handle_map.get(method, {})) | set(record.delegate_map.get(method, {}))
    span = f"{min(known)}..{max(known)}" if known else "none"
    where = f"method {method!r} in {etrecord_source}"
    operators = _instruction_operators(record, method)
    runs = timeline.execution_count or 1
    evidence: list[Evidence] = []
    for observation in judged:
        key = observation.key
        label = f"{key.name or key.delegate_debug_id_str or 'unnamed event'} at instruction "
        label += str(key.instruction_id)
        internal = key.role == ROLE_DELEGATE_INTERNAL
        weight = 0.0 if internal else sum(observation.durations_ms) / runs
        if key.instruction_id not in known:
            run, event = observation.first_seen
            evidence.append(
                Evidence(
                    label,
                    weight,
                    f"not an instruction of {where} (its instructions: {span})",
                    decisive=True,
                    place=f"run_data[{run}].events[{event}]",
                )
            )
            continue
        reason = _mismatch(record, method, operators, timeline, observation)
        evidence.append(Evidence(label, weight, reason))
    verdict = judge_run(
        evidence,
        Wording(
            run=etdump_source,
            items="ETDump events",
            model=f"an instruction of {where}",
            conclusion="the ETDump holds executions of another program",
            unit="ms per execution on average",
            item_unit="ms",
        ),
    )
    unmatched = frozenset(judged[position].key for position in verdict.disagreeing)
    return ProgramMatch(unmatched, verdict.warning)


def _instruction_operators(record: ETRecord, method: str) -> dict[int, frozenset[str]]:
    """Instruction id -> operator names of the edge nodes its debug handles select."""
    by_handle: dict[int, set[str]] = {}
    for node in record.edge_graphs.get(method, ()):
        for handle in node.debug_handles:
            by_handle.setdefault(handle, set()).add(_operator_of_target(node.target))
    operators: dict[int, frozenset[str]] = {}
    for instruction, handles in record.debug_handle_map.get(method, {}).items():
        names: set[str] = set()
        for handle in handles:
            names.update(by_handle.get(handle, ()))
        if names:
            operators[instruction] = frozenset(names)
    return operators


def _mismatch(
    record: ETRecord,
    method: str,
    operators: Mapping[int, frozenset[str]],
    timeline: Timeline,
    observation: Observation,
) -> str | None:
    key = observation.key
    delegate = record.delegate_map.get(method, {}).get(key.instruction_id)
    expected = operators.get(key.instruction_id)
    if key.role in (ROLE_DELEGATE, ROLE_DELEGATE_INTERNAL):
        if delegate is None:
            what = "a delegate call" if key.role == ROLE_DELEGATE else "a delegate-internal event"
            operator = f" ({'/'.join(sorted(expected))})" if expected else ""
            instruction = key.instruction_id
            return f"{what}, but the ETRecord's instruction {instruction} is an operator{operator}"
        return None
    if delegate is not None:
        return (
            f"an operator event, but the ETRecord's instruction {key.instruction_id} is a "
            f"{delegate.backend} delegate call"
        )
    kernels = timeline.kernel_names.get((key.chain_index, key.instruction_id), ())
    if expected is None or not kernels:
        return None
    ran = [_operator_of_kernel(kernel) for kernel in kernels]
    if any(name in expected for name in ran):
        return None
    return (
        f"kernel {kernels[0]} ran, but the ETRecord's instruction {key.instruction_id} is "
        + "/".join(sorted(expected))
    )


def _operator_of_target(target: str) -> str:
    """``convolution`` of ``executorch.exir.dialects.edge.ops.aten.convolution.default``."""
    parts = target.split(".")
    return parts[-2] if len(parts) >= 2 else target


def _operator_of_kernel(kernel: str) -> str:
    """``convolution`` of ``native_call_convolution.out``."""
    name = kernel[len(NATIVE_CALL_PREFIX) :] if kernel.startswith(NATIVE_CALL_PREFIX) else kernel
    return name.rsplit(".", 1)[0]
