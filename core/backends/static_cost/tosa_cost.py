"""Static cost of a TOSA flatbuffer from its tensor shapes.

Each block's ``tensors`` give every operand's shape and ``DType`` (TOSA 1.0 codes: BOOL, INT4,
INT8, INT16, INT32, INT48, FP32, FP16, BF16, SHAPE, FP8E4M3, FP8E5M2). Stored tensors are the
outputs of ``CONST``/``CONST_SHAPE`` operators, which are themselves not costed (their bytes
count as the parameters of the operators reading them; a shape operand of a data-movement
operator that has no tensor entry, as ``RESHAPE``'s ``CONST_SHAPE``, is left out). Layouts
(TOSA 1.0): ``CONV2D`` weight ``[O, KH, KW, I]``, ``DEPTHWISE_CONV2D`` ``[KH, KW, C, M]``,
``TRANSPOSE_CONV2D`` ``[O, KH, KW, I]``, ``CONV3D`` ``[O, KD, KH, KW, I]``,
``MATMUL`` ``[N, H, C] x [N, C, W]``;
pooling windows from the operator's ``PoolAttribute``. MLIR-text TOSA records no shapes here:
its operators are listed without numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfline.core.backends.static_cost import formulas
from perfline.core.formats.tosa import (
    TOSA_IDENTIFIER,
    TosaOperator,
    read_tosa,
    tosa_pool_kernels,
    tosa_tensors,
)

_DTYPE_BYTES: dict[int, float] = {
    1: 1, 2: 0.5, 3: 1, 4: 2, 5: 4, 6: 6, 7: 4, 8: 2, 9: 2, 10: 8, 11: 1, 12: 1,
}  # fmt: skip
CONSTANTS = ("CONST", "CONST_SHAPE")
_CATEGORIES: dict[str, str] = {
    **dict.fromkeys(("CONV2D", "CONV3D", "DEPTHWISE_CONV2D"), formulas.CONV),
    "TRANSPOSE_CONV2D": formulas.CONV_TRANSPOSE,
    **dict.fromkeys(("MATMUL", "FULLY_CONNECTED", "MATMUL_T"), formulas.MATMUL),
    **dict.fromkeys(("REDUCE_SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PRODUCT", "REDUCE_ALL",
                     "REDUCE_ANY", "ARGMAX"), formulas.REDUCTION),
    **dict.fromkeys(("AVG_POOL2D", "MAX_POOL2D"), formulas.POOL),
    **dict.fromkeys(("RESHAPE", "TRANSPOSE", "SLICE", "CONCAT", "PAD", "TILE", "GATHER",
                     "SCATTER", "REVERSE", "IDENTITY", "CAST", "RESIZE"), formulas.DATA_MOVEMENT),
    **dict.fromkeys(("ADD", "SUB", "MUL", "CLAMP", "MAXIMUM", "MINIMUM", "RESCALE", "TABLE",
                     "SIGMOID", "TANH", "ERF", "EXP", "LOG", "ABS", "NEGATE", "RECIPROCAL",
                     "RSQRT", "POW", "SELECT", "EQUAL", "GREATER", "GREATER_EQUAL", "CEIL",
                     "FLOOR", "SIN", "COS", "INTDIV", "ARITHMETIC_RIGHT_SHIFT",
                     "LOGICAL_LEFT_SHIFT", "LOGICAL_RIGHT_SHIFT", "BITWISE_AND",
                     "BITWISE_OR", "BITWISE_XOR", "BITWISE_NOT", "LOGICAL_AND", "LOGICAL_OR",
                     "LOGICAL_XOR", "LOGICAL_NOT", "CLZ"), formulas.ELEMENTWISE),
}  # fmt: skip


@dataclass(frozen=True)
class TosaCost:
    """One operator's cost, or why it has none."""

    operator: TosaOperator
    cost: formulas.OperatorCost | None
    reason: str | None


def tosa_costs(data: bytes, source: str) -> list[TosaCost]:
    """Every non-constant operator's cost, in id order."""
    model = read_tosa(data, source)
    flatbuffer = data[4:8] == TOSA_IDENTIFIER
    tensors = tosa_tensors(data, source) if flatbuffer else {}
    kernels = tosa_pool_kernels(data, source) if flatbuffer else {}
    stored = {out for op in model.operators if op.op_type in CONSTANTS for out in op.outputs}
    costs: list[TosaCost] = []
    for operator in model.operators:
        if operator.op_type in CONSTANTS:
            continue
        if not flatbuffer:
            costs.append(TosaCost(operator, None, "MLIR text: tensor shapes are not read"))
            continue
        category = _CATEGORIES.get(operator.op_type)
        if category is None:
            costs.append(TosaCost(operator, None, f"no cost formula for {operator.op_type}"))
            continue

        def use(name: str) -> formulas.TensorUse:
            shape, dtype = tensors.get(name, (None, 0))
            return formulas.TensorUse(shape, _DTYPE_BYTES.get(dtype), name in stored)

        inputs = [
            use(name)
            for name in operator.inputs
            if not (category == formulas.DATA_MOVEMENT and name in stored and name not in tensors)
        ]
        outputs = [use(name) for name in operator.outputs]
        if any(u.shape is None for u in (*inputs, *outputs)):
            costs.append(TosaCost(operator, None, "a tensor has no shape in the file"))
            continue
        macs = _macs(operator, inputs, outputs)
        if category in (formulas.CONV, formulas.CONV_TRANSPOSE, formulas.MATMUL) and macs is None:
            costs.append(TosaCost(operator, None, "shapes do not fit the operator's formula"))
            continue
        kernel = kernels.get(operator.id)
        window = formulas.elements(kernel) if kernel else None
        bias = category in (formulas.CONV, formulas.CONV_TRANSPOSE) and len(inputs) > 2
        cost = formulas.operator_cost(
            category, macs=macs, inputs=inputs, outputs=outputs, window=window, bias=bias
        )
        costs.append(TosaCost(operator, cost, None))
    return costs


def _macs(
    operator: TosaOperator, inputs: list[formulas.TensorUse], outputs: list[formulas.TensorUse]
) -> int | None:
    out = outputs[0].shape if outputs else None
    weight = inputs[1].shape if len(inputs) > 1 else None
    x = inputs[0].shape if inputs else None
    if out is None or weight is None or x is None:
        return None
    kind = operator.op_type
    if kind == "CONV2D" and len(weight) == 4:
        return formulas.conv_macs(out, weight[1:3], weight[3])
    if kind == "CONV3D" and len(weight) == 5:
        return formulas.conv_macs(out, weight[1:4], weight[4])
    if kind == "DEPTHWISE_CONV2D" and len(weight) == 4:
        return formulas.conv_macs(out, weight[0:2], 1)
    if kind == "TRANSPOSE_CONV2D" and len(weight) == 4:
        return formulas.conv_transpose_macs(x, weight[0], weight[1:3])
    if kind in ("MATMUL", "MATMUL_T"):
        return formulas.matmul_macs(out, x[-1])
    if kind == "FULLY_CONNECTED" and len(weight) == 2:
        return formulas.matmul_macs(out, weight[1])
    return None
