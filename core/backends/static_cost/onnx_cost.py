"""Static cost of an ONNX model: tensor shapes (from the file, else inferred), then per node.

Shapes come from the graph's inputs, initializers, ``Constant`` nodes and ``value_info``; a
tensor the file gives no fixed shape for is inferred here, node by node in graph order, for the
operators below (ONNX operator semantics: broadcasting, convolution and pooling output sizes with
pads/strides/dilations/``auto_pad``, Gemm transposes, Reshape with 0 and -1, axes given as
attributes or as constant inputs). Anything else leaves its outputs unknown, and operators that
read an unknown shape get no number. Costs follow ``formulas``. Cost: O(nodes x rank).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfline.core.backends.static_cost import formulas
from perfline.core.formats.onnx import OnnxNode
from perfline.core.formats.onnx_graph import ELEMENT_BYTES, NodeAttributes, OnnxGraph

Shape = tuple[int, ...]

_CATEGORIES: dict[str, str] = {
    **dict.fromkeys(("Conv", "ConvInteger", "QLinearConv"), formulas.CONV),
    "ConvTranspose": formulas.CONV_TRANSPOSE,
    **dict.fromkeys(
        ("MatMul", "Gemm", "FusedMatMul", "MatMulInteger", "QLinearMatMul"), formulas.MATMUL
    ),
    **dict.fromkeys(("Softmax", "LogSoftmax"), formulas.SOFTMAX),
    "BatchNormalization": formulas.BATCH_NORM,
    **dict.fromkeys(
        ("LayerNormalization", "InstanceNormalization", "GroupNormalization",
         "SimplifiedLayerNormalization", "SkipLayerNormalization"),
        formulas.LAYER_NORM,
    ),
    **dict.fromkeys(
        ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2",
         "ReduceL1", "ReduceSumSquare", "ReduceLogSumExp", "GlobalAveragePool", "GlobalMaxPool",
         "ArgMax", "ArgMin"),
        formulas.REDUCTION,
    ),
    **dict.fromkeys(("MaxPool", "AveragePool", "LpPool"), formulas.POOL),
    **dict.fromkeys(
        ("Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "Identity", "Concat",
         "Split", "Slice", "Gather", "GatherElements", "GatherND", "Expand", "Tile", "Pad",
         "Cast", "CastLike", "Shape", "Size", "Constant", "ConstantOfShape", "DepthToSpace",
         "SpaceToDepth", "Dropout", "Range", "Resize", "ScatterND", "ScatterElements",
         "NonZero", "Trilu", "OneHot"),
        formulas.DATA_MOVEMENT,
    ),
}  # fmt: skip
_UNARY = (
    "Relu", "LeakyRelu", "PRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Gelu",
    "FastGelu", "Erf", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs", "Clip", "Elu",
    "Selu", "Softplus", "Softsign", "Mish", "Sin", "Cos", "Floor", "Ceil", "Round", "Sign",
    "Not", "IsNaN", "IsInf", "Celu", "ThresholdedRelu", "QuickGelu", "BiasGelu",
)  # fmt: skip
_BINARY = (
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mean", "Sum", "Equal", "Less",
    "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Where", "Mod",
    "BitShift", "BiasAdd",
)  # fmt: skip
for _name in (*_UNARY, *_BINARY):
    _CATEGORIES.setdefault(_name, formulas.ELEMENTWISE)
_SAME_SHAPE = (
    *_UNARY, "Softmax", "LogSoftmax", "BatchNormalization", "LayerNormalization",
    "InstanceNormalization", "GroupNormalization", "Identity", "Dropout", "Cast", "CastLike",
    "SimplifiedLayerNormalization", "SkipLayerNormalization", "LRN",
)  # fmt: skip


@dataclass(frozen=True)
class NodeCost:
    """One node's cost, or why it has none."""

    node: OnnxNode
    cost: formulas.OperatorCost | None
    reason: str | None


class _Tensors:
    """Known shapes, element types and small constant values, by tensor name."""

    def __init__(self, graph: OnnxGraph) -> None:
        self.shapes: dict[str, Shape] = {}
        self.types: dict[str, int] = {}
        self.values: dict[str, tuple[float, ...]] = {}
        self.stored: set[str] = set()
        for info in graph.value_info.values():
            if info.elem_type:
                self.types[info.name] = info.elem_type
            if info.shape is not None and all(type(d) is int and d >= 0 for d in info.shape):
                self.shapes[info.name] = tuple(d for d in info.shape if type(d) is int)
        for name, tensor in graph.initializers.items():
            self.shapes[name] = tensor.dims
            self.types[name] = tensor.elem_type
            self.stored.add(name)
            if tensor.values is not None:
                self.values[name] = tensor.values

    def use(self, name: str) -> formulas.TensorUse:
        size = ELEMENT_BYTES.get(self.types.get(name, 0))
        return formulas.TensorUse(self.shapes.get(name), size, name in self.stored)

    def ints(self, name: str) -> tuple[int, ...] | None:
        values = self.values.get(name)
        return tuple(int(v) for v in values) if values is not None else None


def onnx_costs(graph: OnnxGraph) -> list[NodeCost]:
    """Every top-level node's cost, in graph order."""
    tensors = _Tensors(graph)
    costs: list[NodeCost] = []
    for node, attributes in zip(graph.model.nodes, graph.attributes, strict=True):
        _infer(node, attributes, tensors)
        costs.append(_cost(node, attributes, tensors))
    return costs


def _cost(node: OnnxNode, attributes: NodeAttributes, tensors: _Tensors) -> NodeCost:
    category = _CATEGORIES.get(node.op_type)
    if category is None:
        return NodeCost(node, None, f"no cost formula for {node.op_type}")
    inputs = [tensors.use(name) for name in node.inputs if name]
    outputs = [tensors.use(name) for name in node.outputs if name]
    if category == formulas.DATA_MOVEMENT and node.op_type == "Constant":
        outputs = [formulas.TensorUse(use.shape, use.element_bytes, True) for use in outputs]
    unknown = [
        name for name in (*node.inputs, *node.outputs) if name and name not in tensors.shapes
    ]
    if unknown and category != formulas.DATA_MOVEMENT:
        return NodeCost(node, None, f"shape of {unknown[0]!r} unknown (not inferable)")
    macs = _macs(node, attributes, tensors, category)
    if category in (formulas.MATMUL, formulas.CONV, formulas.CONV_TRANSPOSE) and macs is None:
        return NodeCost(node, None, "shapes do not fit the operator's formula")
    window = None
    if category == formulas.POOL:
        kernel = attributes.int_list("kernel_shape")
        window = formulas.elements(kernel) if kernel else None
    bias = (
        category in (formulas.CONV, formulas.CONV_TRANSPOSE)
        and len([i for i in node.inputs if i]) > 2
    )
    bias = bias or (node.op_type == "Gemm" and len([i for i in node.inputs if i]) > 2)
    cost = formulas.operator_cost(
        category, macs=macs, inputs=inputs, outputs=outputs, window=window, bias=bias
    )
    return NodeCost(node, cost, None)


def _macs(
    node: OnnxNode, attributes: NodeAttributes, tensors: _Tensors, category: str
) -> int | None:
    shapes = tensors.shapes
    if category == formulas.CONV:
        x, w, out = (
            shapes.get(node.inputs[0]),
            shapes.get(node.inputs[1]),
            shapes.get(node.outputs[0]),
        )
        if x is None or w is None or out is None or len(w) < 3:
            return None
        return formulas.conv_macs(out, w[2:], w[1])
    if category == formulas.CONV_TRANSPOSE:
        x, w = shapes.get(node.inputs[0]), shapes.get(node.inputs[1])
        if x is None or w is None or len(w) < 3:
            return None
        return formulas.conv_transpose_macs(x, w[1], w[2:])
    if category == formulas.MATMUL:
        a, out = shapes.get(node.inputs[0]), shapes.get(node.outputs[0])
        if a is None or out is None or not a:
            return None
        transposed = node.op_type in ("Gemm", "FusedMatMul") and attributes.integer("transA", 0)
        contracted = a[0] if transposed and len(a) == 2 else a[-1]
        return formulas.matmul_macs(out, contracted)
    return 0


def _infer(node: OnnxNode, attributes: NodeAttributes, tensors: _Tensors) -> None:
    outputs = [name for name in node.outputs if name]
    if not outputs:
        return
    if node.op_type == "Constant":
        tensor = attributes.tensors.get("value")
        if tensor is not None:
            tensors.shapes[outputs[0]] = tensor.dims
            tensors.types[outputs[0]] = tensor.elem_type
            tensors.stored.add(outputs[0])
            if tensor.values is not None:
                tensors.values[outputs[0]] = tensor.values
        return
    first = node.inputs[0] if node.inputs else ""
    if outputs[0] not in tensors.types and first in tensors.types:
        tensors.types[outputs[0]] = tensors.types[first]
    if node.op_type in ("Cast",):
        tensors.types[outputs[0]] = attributes.integer("to", tensors.types.get(first, 0))
    if all(name in tensors.shapes for name in outputs):
        return
    shape = _output_shape(node, attributes, tensors)
    if shape is not None:
        tensors.shapes[outputs[0]] = shape


def _output_shape(node: OnnxNode, attributes: NodeAttributes, tensors: _Tensors) -> Shape | None:
    shapes = tensors.shapes
    inputs = [shapes.get(name) if name else None for name in node.inputs]
    x = inputs[0] if inputs else None
    op = node.op_type
    if op in _SAME_SHAPE:
        return x
    if op in _BINARY:
        known = [shape for shape in inputs if shape is not None]
        return formulas.broadcast(known) if len(known) == len(inputs) else None
    if x is None:
        return None
    if op in ("Conv", "MaxPool", "AveragePool", "LpPool"):
        return _window_shape(node, attributes, inputs)
    if op in ("GlobalAveragePool", "GlobalMaxPool"):
        return (*x[:2], *(1 for _ in x[2:]))
    if op == "Gemm":
        w = inputs[1] if len(inputs) > 1 else None
        if w is None or len(x) != 2 or len(w) != 2:
            return None
        rows = x[1] if attributes.integer("transA", 0) else x[0]
        columns = w[0] if attributes.integer("transB", 0) else w[1]
        return (rows, columns)
    if op in ("MatMul", "FusedMatMul"):
        return _matmul_shape(x, inputs[1] if len(inputs) > 1 else None)
    if op == "Reshape":
        target = tensors.ints(node.inputs[1]) if len(node.inputs) > 1 else None
        return _reshape(x, target, bool(attributes.integer("allowzero", 0)))
    if op == "Flatten":
        axis = attributes.integer("axis", 1) % (len(x) + 1) if x else 0
        return (formulas.elements(x[:axis]), formulas.elements(x[axis:]))
    if op == "Transpose":
        perm = attributes.int_list("perm") or tuple(reversed(range(len(x))))
        return tuple(x[axis] for axis in perm) if len(perm) == len(x) else None
    if op.startswith("Reduce") or op in ("ArgMax", "ArgMin"):
        return _reduce(node, attributes, tensors, x)
    if op in ("Squeeze", "Unsqueeze"):
        axes = attributes.int_list("axes")
        if axes is None and len(node.inputs) > 1:
            axes = tensors.ints(node.inputs[1])
        return _squeeze(x, axes, op == "Unsqueeze")
    if op == "Concat":
        if any(shape is None for shape in inputs):
            return None
        axis = attributes.integer("axis", 0) % len(x)
        total = sum(shape[axis] for shape in inputs if shape is not None)
        return (*x[:axis], total, *x[axis + 1 :])
    if op == "Gather":
        indices = inputs[1] if len(inputs) > 1 else None
        if indices is None:
            return None
        axis = attributes.integer("axis", 0) % len(x)
        return (*x[:axis], *indices, *x[axis + 1 :])
    if op == "Shape":
        tensors.values[node.outputs[0]] = tuple(float(d) for d in x)
        tensors.types[node.outputs[0]] = 7
        return (len(x),)
    return None


def _window_shape(
    node: OnnxNode, attributes: NodeAttributes, inputs: Sequence[Shape | None]
) -> Shape | None:
    x = inputs[0]
    if x is None or len(x) < 3:
        return None
    spatial = len(x) - 2
    if node.op_type == "Conv":
        w = inputs[1] if len(inputs) > 1 else None
        if w is None or len(w) != len(x):
            return None
        kernel, channels = w[2:], w[0]
    else:
        kernel_list = attributes.int_list("kernel_shape")
        if kernel_list is None or len(kernel_list) != spatial:
            return None
        kernel, channels = kernel_list, x[1]
    strides = attributes.int_list("strides") or (1,) * spatial
    dilations = attributes.int_list("dilations") or (1,) * spatial
    pads = attributes.int_list("pads") or (0,) * (2 * spatial)
    auto_pad = attributes.strings.get("auto_pad", "NOTSET")
    ceil = bool(attributes.integer("ceil_mode", 0))
    sizes: list[int] = []
    for axis in range(spatial):
        size, stride = x[2 + axis], strides[axis]
        extent = dilations[axis] * (kernel[axis] - 1) + 1
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            sizes.append(-(-size // stride))
        elif auto_pad == "VALID":
            sizes.append((size - extent) // stride + 1)
        else:
            padded = size + pads[axis] + pads[axis + spatial] - extent
            sizes.append((-(-padded // stride) if ceil else padded // stride) + 1)
    return (x[0], channels, *sizes)


def _matmul_shape(a: Shape, b: Shape | None) -> Shape | None:
    if b is None or not a or not b:
        return None
    left = (1, *a) if len(a) == 1 else a
    right = (*b, 1) if len(b) == 1 else b
    batch = formulas.broadcast([left[:-2], right[:-2]])
    if batch is None or left[-1] != right[-2]:
        return None
    shape = (*batch, left[-2], right[-1])
    if len(a) == 1:
        shape = (*shape[:-2], shape[-1])
    if len(b) == 1:
        shape = shape[:-1]
    return shape


def _reshape(x: Shape, target: tuple[int, ...] | None, allow_zero: bool) -> Shape | None:
    if target is None:
        return None
    dims = [x[i] if d == 0 and not allow_zero and i < len(x) else d for i, d in enumerate(target)]
    if dims.count(-1) > 1:
        return None
    if -1 in dims:
        known = formulas.elements([d for d in dims if d != -1])
        if known == 0 or formulas.elements(x) % known:
            return None
        dims[dims.index(-1)] = formulas.elements(x) // known
    return tuple(dims) if formulas.elements(dims) == formulas.elements(x) else None


def _reduce(
    node: OnnxNode, attributes: NodeAttributes, tensors: _Tensors, x: Shape
) -> Shape | None:
    keep = bool(attributes.integer("keepdims", 1))
    if node.op_type in ("ArgMax", "ArgMin"):
        axes: tuple[int, ...] | None = (attributes.integer("axis", 0),)
    else:
        axes = attributes.int_list("axes")
        if axes is None and len(node.inputs) > 1 and node.inputs[1]:
            axes = tensors.ints(node.inputs[1])
            if axes is None:
                return None
    rank = len(x)
    chosen = {a % rank for a in axes} if axes else set(range(rank))
    if not axes and attributes.integer("noop_with_empty_axes", 0):
        return x
    return tuple(1 if i in chosen else d for i, d in enumerate(x) if keep or i not in chosen)


def _squeeze(x: Shape, axes: tuple[int, ...] | None, unsqueeze: bool) -> Shape | None:
    if unsqueeze:
        if axes is None:
            return None
        rank = len(x) + len(axes)
        chosen = {a % rank for a in axes}
        values = iter(x)
        return tuple(1 if i in chosen else next(values) for i in range(rank))
    if axes is None:
        return tuple(d for d in x if d != 1)
    chosen = {a % len(x) for a in axes}
    return tuple(d for i, d in enumerate(x) if i not in chosen)
