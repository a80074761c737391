"""Cost formulas shared by the ONNX, PT2 and TOSA routes, from tensor shapes alone (pure).

MACs count multiply-accumulates of convolutions and matrix products only:

* convolution (grouped, depthwise): ``MACs = prod(output) x prod(kernel window) x C_in/groups``
  (every output element is one dot product over its window of the input channels of its group);
* transposed convolution: ``MACs = prod(input) x C_out/groups x prod(kernel)`` (every input
  element is scattered over a window of output channels);
* matrix products (MatMul, Gemm, linear, batched, attention products):
  ``MACs = prod(output) x K`` with ``K`` the contracted dimension.

FLOPs, a stated convention (no per-function constants beyond these): a MAC is 2 FLOPs and a bias
adds 1 per output element; elementwise and activation operators 1 per output element; softmax 3
per element (exponential, sum, divide); batch normalisation (inference) 2 per element (scale,
shift); layer/instance/group normalisation 7 per element (mean, subtract, square, sum, normalise,
scale, shift); reductions and global pooling 1 per input element; windowed pooling 1 per window
element per output element; reshapes, views, copies, gathers and casts 0.

Bytes: parameter bytes = the stored tensors (weights, biases, constants) an operator reads; input
and output activation bytes = its other inputs and its outputs (shape x element size). A cost
needs every shape it uses: anything unknown gives ``None`` (the operator is listed, no number).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Shape = tuple[int, ...]

MATMUL = "matmul"
CONV = "conv"
CONV_TRANSPOSE = "conv_transpose"
ELEMENTWISE = "elementwise"
SOFTMAX = "softmax"
BATCH_NORM = "batch_norm"
LAYER_NORM = "layer_norm"
REDUCTION = "reduction"
POOL = "pool"
DATA_MOVEMENT = "data_movement"

FLOPS_PER_ELEMENT: dict[str, int] = {
    ELEMENTWISE: 1,
    SOFTMAX: 3,
    BATCH_NORM: 2,
    LAYER_NORM: 7,
    DATA_MOVEMENT: 0,
}


@dataclass(frozen=True)
class OperatorCost:
    """The figures of one operator (``None`` = not known)."""

    category: str
    macs: int | None
    flops: int | None
    parameter_bytes: float | None
    input_bytes: float | None
    output_bytes: float | None

    @property
    def total_bytes(self) -> float | None:
        """Every byte the operator reads or writes, if all are known."""
        parts = (self.parameter_bytes, self.input_bytes, self.output_bytes)
        if any(part is None for part in parts):
            return None
        return sum(part for part in parts if part is not None)


def elements(shape: Sequence[int]) -> int:
    """The number of elements of a shape (1 for a scalar)."""
    count = 1
    for dim in shape:
        count *= dim
    return count


def conv_macs(output: Shape, weight: Shape, channels_per_group: int) -> int:
    """MACs of a convolution given its output, its weight's spatial window and C_in/groups."""
    return elements(output) * elements(weight) * channels_per_group


def conv_transpose_macs(input_shape: Shape, out_channels_per_group: int, window: Shape) -> int:
    """MACs of a transposed convolution."""
    return elements(input_shape) * out_channels_per_group * elements(window)


def matmul_macs(output: Shape, contracted: int) -> int:
    """MACs of a (batched) matrix product."""
    return elements(output) * contracted


def flops_of(
    category: str,
    *,
    macs: int | None,
    output: Shape | None,
    input_shape: Shape | None = None,
    window: int | None = None,
    bias: bool = False,
) -> int | None:
    """FLOPs of one operator by the convention of the module docstring."""
    if category in (MATMUL, CONV, CONV_TRANSPOSE):
        if macs is None or output is None:
            return None
        return 2 * macs + (elements(output) if bias else 0)
    if category == REDUCTION:
        return elements(input_shape) if input_shape is not None else None
    if category == POOL:
        if output is None or window is None:
            return None
        return elements(output) * window
    per_element = FLOPS_PER_ELEMENT.get(category)
    if per_element is None or output is None:
        return None
    return per_element * elements(output)


def tensor_bytes(shapes: Sequence[Shape | None], sizes: Sequence[float | None]) -> float | None:
    """The bytes of tensors of these shapes and element sizes (``None`` if any is unknown)."""
    total = 0.0
    for shape, size in zip(shapes, sizes, strict=True):
        if shape is None or size is None:
            return None
        total += elements(shape) * size
    return total


def broadcast(shapes: Sequence[Shape]) -> Shape | None:
    """The numpy broadcast of ``shapes`` (``None`` if they do not broadcast)."""
    rank = max((len(shape) for shape in shapes), default=0)
    result: list[int] = []
    for axis in range(rank):
        size = 1
        for shape in shapes:
            offset = axis - (rank - len(shape))
            if offset < 0:
                continue
            dim = shape[offset]
            if dim == 1:
                continue
            if size not in (1, dim):
                return None
            size = dim
        result.append(size)
    return tuple(result)


@dataclass(frozen=True)
class TensorUse:
    """One input or output of an operator: its shape, element size and whether it is stored."""

    shape: Shape | None
    element_bytes: float | None
    parameter: bool = False


def operator_cost(
    category: str,
    *,
    macs: int | None,
    inputs: Sequence[TensorUse],
    outputs: Sequence[TensorUse],
    window: int | None = None,
    bias: bool = False,
) -> OperatorCost:
    """The figures of one operator from its category, MACs and tensors."""
    if category not in (MATMUL, CONV, CONV_TRANSPOSE):
        macs = 0
    output = outputs[0].shape if outputs else None
    activations = [use for use in inputs if not use.parameter]
    first = activations[0].shape if activations else None
    parameters = [use for use in inputs if use.parameter]
    return OperatorCost(
        category=category,
        macs=macs,
        flops=flops_of(
            category, macs=macs, output=output, input_shape=first, window=window, bias=bias
        ),
        parameter_bytes=tensor_bytes(
            [u.shape for u in parameters], [u.element_bytes for u in parameters]
        ),
        input_bytes=tensor_bytes(
            [u.shape for u in activations], [u.element_bytes for u in activations]
        ),
        output_bytes=tensor_bytes([u.shape for u in outputs], [u.element_bytes for u in outputs]),
    )
