"""Convolution kernel sizes and output channels from a VGF segment's SPIR-V (advice input).

Walks the module's words once, recording ``OpConstant`` (43) integer values,
``OpConstantComposite`` (44) constituents, ``OpTypeTensorARM`` (4163) shapes
and ``OpGraphConstantARM`` (4181) types. For each TOSA ``DEPTHWISE_CONV2D``
and ``CONV2D`` (operands: pad, stride, dilation, acc_type, local_bound,
input, weight, ...) the weight's tensor shape gives the kernel -- ``[KH, KW,
C, M]`` for depthwise, ``[OC, KH, KW, IC]`` for normal convolutions, whose
first dimension is the output channel count. A shape that cannot be resolved
leaves the figures ``None``. Cost: linear in the module's words.
"""

from __future__ import annotations

from collections.abc import Sequence

from perfline.core.backends.nx_common.associations import source_operator_id
from perfline.core.backends.nx_estimator.advice import CONVOLUTION, DEPTHWISE, Convolution
from perfline.core.formats.spirv import SpirvOperation

OP_CONSTANT = 43
OP_CONSTANT_COMPOSITE = 44
OP_TYPE_TENSOR_ARM = 4163
OP_GRAPH_CONSTANT_ARM = 4181
WEIGHT_OPERAND = 6
_KINDS = {"DEPTHWISE_CONV2D": DEPTHWISE, "CONV2D": CONVOLUTION}


def segment_convolutions(
    segment_index: int, words: Sequence[int], operations: Sequence[SpirvOperation]
) -> list[Convolution]:
    """The segment's convolutions in graph order, with kernel and output channels when known."""
    constants: dict[int, int] = {}
    composites: dict[int, tuple[int, ...]] = {}
    tensor_shapes: dict[int, int] = {}
    value_types: dict[int, int] = {op.result_id: op.result_type for op in operations}
    position = 5
    while position < len(words):
        count, opcode = words[position] >> 16, words[position] & 0xFFFF
        if count == 0:
            break
        operands = words[position + 1 : position + count]
        if opcode == OP_CONSTANT and len(operands) == 3:
            constants[operands[1]] = operands[2]
        elif opcode == OP_CONSTANT_COMPOSITE and len(operands) >= 2:
            composites[operands[1]] = tuple(operands[2:])
        elif opcode == OP_TYPE_TENSOR_ARM and len(operands) >= 4:
            tensor_shapes[operands[0]] = operands[3]  # result, element type, rank, shape
        elif opcode == OP_GRAPH_CONSTANT_ARM and len(operands) >= 2:
            value_types[operands[1]] = operands[0]
        position += count

    def shape_of(value_id: int) -> tuple[int, ...] | None:
        shape_id = tensor_shapes.get(value_types.get(value_id, -1))
        members = composites.get(shape_id) if shape_id is not None else None
        if members is None or any(member not in constants for member in members):
            return None
        return tuple(constants[member] for member in members)

    convolutions: list[Convolution] = []
    for operation in operations:
        kind = _KINDS.get(operation.op_name)
        if kind is None:
            continue
        shape = None
        if len(operation.operands) > WEIGHT_OPERAND:
            shape = shape_of(operation.operands[WEIGHT_OPERAND])
        kernel: tuple[int, int] | None = None
        channels: int | None = None
        if shape is not None and len(shape) == 4:
            if kind == DEPTHWISE:
                kernel = (shape[0], shape[1])
            else:
                kernel = (shape[1], shape[2])
                channels = shape[0]
        convolutions.append(
            Convolution(
                source_operator_id(segment_index, operation.result_id), kind, kernel, channels
            )
        )
    return convolutions
