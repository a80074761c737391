"""Static cost of a PT2 archive from the exported graph's tensor metadata.

Shapes are ``graph_module.graph.tensor_values[<name>].sizes`` (``as_int``; a symbolic size makes
the shape unknown) and element sizes its ``dtype`` (torch's ``ScalarType`` codes of the export
schema). Stored tensors are the signature's ``parameter``, ``buffer`` and ``tensor_constant``
inputs. ATen operators by target (pre-dispatch and core ATen names), costs by ``formulas``:
``conv2d``/``convolution`` (``transposed`` flag), ``linear``/``addmm``/``mm``/``bmm``/
``matmul``, ``scaled_dot_product_attention`` (two products: Q K^T and the weights times V), the
normalisations, ``softmax``, reductions, pooling, elementwise ops and views. The rebuilt
``getitem`` nodes of multi-output operators are free (they pick one output).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from perfline.core.backends.static_cost import formulas
from perfline.core.formats.pt2 import Pt2Node, read_program_json, read_pt2

Shape = tuple[int, ...]
#: torch export schema ``ScalarType`` -> bytes per element.
_DTYPE_BYTES: dict[int, float] = {
    1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 2, 7: 4, 8: 8, 9: 8, 10: 16, 11: 1, 12: 2, 13: 1,
}  # fmt: skip
_BY_NAME: dict[str, str] = {
    **dict.fromkeys(("conv1d", "conv2d", "conv3d", "convolution", "_convolution"), formulas.CONV),
    **dict.fromkeys(("conv_transpose1d", "conv_transpose2d", "conv_transpose3d"),
                    formulas.CONV_TRANSPOSE),
    **dict.fromkeys(("linear", "addmm", "mm", "bmm", "matmul", "baddbmm"), formulas.MATMUL),
    "scaled_dot_product_attention": formulas.MATMUL,
    **dict.fromkeys(("softmax", "_softmax", "log_softmax", "_log_softmax"), formulas.SOFTMAX),
    **dict.fromkeys(("batch_norm", "_native_batch_norm_legit_no_training",
                     "_native_batch_norm_legit", "native_batch_norm"), formulas.BATCH_NORM),
    **dict.fromkeys(("layer_norm", "native_layer_norm", "group_norm", "native_group_norm",
                     "instance_norm", "rms_norm"), formulas.LAYER_NORM),
    **dict.fromkeys(("mean", "sum", "amax", "amin", "max", "min", "prod", "argmax", "argmin",
                     "adaptive_avg_pool2d", "adaptive_avg_pool1d", "_adaptive_avg_pool2d",
                     "var", "std"), formulas.REDUCTION),
    **dict.fromkeys(("max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d",
                     "max_pool2d_with_indices"), formulas.POOL),
    **dict.fromkeys(("view", "reshape", "flatten", "permute", "transpose", "t", "unsqueeze",
                     "squeeze", "expand", "clone", "contiguous", "_unsafe_view", "alias",
                     "detach", "select", "slice", "split", "split_with_sizes", "chunk", "cat",
                     "stack", "unbind", "getitem", "dropout", "to", "_to_copy", "copy",
                     "index_select", "gather", "pad", "constant_pad_nd", "repeat", "view_copy",
                     "permute_copy", "unsafe_split", "narrow", "flip", "roll"),
                    formulas.DATA_MOVEMENT),
    **dict.fromkeys(("relu", "relu_", "gelu", "silu", "sigmoid", "tanh", "hardtanh",
                     "hardswish", "hardsigmoid", "leaky_relu", "elu", "mish", "add", "add_",
                     "sub", "mul", "div", "pow", "neg", "exp", "log", "sqrt", "rsqrt", "abs",
                     "clamp", "clamp_min", "clamp_max", "maximum", "minimum", "where", "eq",
                     "ne", "lt", "gt", "le", "ge", "erf", "reciprocal", "square", "sin", "cos",
                     "softplus", "logical_not", "bitwise_and", "floor", "ceil", "round"),
                    formulas.ELEMENTWISE),
}  # fmt: skip


@dataclass(frozen=True)
class Pt2Cost:
    """One operator node's cost, or why it has none."""

    node: Pt2Node
    cost: formulas.OperatorCost | None
    reason: str | None


def _aten_name(target: str) -> str:
    parts = target.removeprefix("torch.ops.").split(".")
    if len(parts) >= 2 and parts[0] == "aten":
        return parts[1]
    return parts[-1] if parts[0] == "<built-in function getitem>" else target


def _shape(value: Any) -> Shape | None:
    if not isinstance(value, Mapping):
        return None
    sizes = value.get("sizes")
    if not isinstance(sizes, list):
        return None
    dims: list[int] = []
    for size in sizes:
        if not isinstance(size, Mapping) or type(size.get("as_int")) is not int:
            return None
        dims.append(size["as_int"])
    return tuple(dims)


def _tensor_names(arg: Any) -> list[str]:
    if not isinstance(arg, Mapping):
        return []
    tensor = arg.get("as_tensor")
    if isinstance(tensor, Mapping) and isinstance(tensor.get("name"), str):
        return [tensor["name"]]
    tensors = arg.get("as_tensors")
    if isinstance(tensors, list):
        return [t["name"] for t in tensors if isinstance(t, Mapping) and "name" in t]
    return []


def pt2_costs(data: bytes, source: str) -> list[Pt2Cost]:
    """Every operator node's cost, in graph order (nodes as ``formats.pt2`` lists them)."""
    program = read_pt2(data, source)
    _, document = read_program_json(data, source)
    graph = document["graph_module"]["graph"]
    values = graph.get("tensor_values") if isinstance(graph.get("tensor_values"), dict) else {}
    stored = _stored_names(document["graph_module"].get("signature"))
    raw_nodes = {n.get("name"): n for n in graph.get("nodes", []) if isinstance(n, Mapping)}

    def use(name: str) -> formulas.TensorUse:
        value = values.get(name)
        dtype = value.get("dtype") if isinstance(value, Mapping) else None
        size = _DTYPE_BYTES.get(dtype) if isinstance(dtype, int) else None
        return formulas.TensorUse(_shape(value), size, name in stored)

    costs: list[Pt2Cost] = []
    for node in program.nodes:
        name = _aten_name(node.target)
        category = _BY_NAME.get(name)
        if node.producer is not None:
            free = formulas.OperatorCost(formulas.DATA_MOVEMENT, 0, 0, 0.0, 0.0, 0.0)
            costs.append(Pt2Cost(node, free, None))
            continue
        if category is None:
            costs.append(Pt2Cost(node, None, f"no cost formula for {node.op_type}"))
            continue
        raw = raw_nodes.get(node.name, {})
        arguments: dict[str, Any] = {
            str(item.get("name")): item.get("arg")
            for item in raw.get("inputs", [])
            if isinstance(item, Mapping)
        }
        inputs = [use(n) for arg in arguments.values() for n in _tensor_names(arg)]
        outputs = [use(n) for item in raw.get("outputs", []) for n in _tensor_names(item)]
        if category != formulas.DATA_MOVEMENT and (
            any(u.shape is None for u in inputs) or any(u.shape is None for u in outputs)
        ):
            costs.append(Pt2Cost(node, None, "a tensor shape is unknown (symbolic or missing)"))
            continue
        macs = _macs(name, category, arguments, use, outputs)
        if category in (formulas.MATMUL, formulas.CONV, formulas.CONV_TRANSPOSE) and macs is None:
            costs.append(Pt2Cost(node, None, "shapes do not fit the operator's formula"))
            continue
        window = _window(arguments) if category == formulas.POOL else None
        bias = _has_bias(name, arguments)
        cost = formulas.operator_cost(
            category, macs=macs, inputs=inputs, outputs=outputs, window=window, bias=bias
        )
        costs.append(Pt2Cost(node, cost, None))
    return costs


def _stored_names(signature: Any) -> set[str]:
    names: set[str] = set()
    specs = signature.get("input_specs") if isinstance(signature, Mapping) else None
    for spec in specs if isinstance(specs, list) else []:
        if not isinstance(spec, Mapping):
            continue
        for kind in ("parameter", "buffer", "tensor_constant"):
            entry = spec.get(kind)
            if isinstance(entry, Mapping):
                arg = entry.get("arg")
                if isinstance(arg, Mapping) and isinstance(arg.get("name"), str):
                    names.add(arg["name"])
    return names


def _first(arguments: Mapping[str, Any], *names: str) -> list[str]:
    for name in names:
        found = _tensor_names(arguments.get(name))
        if found:
            return found
    return []


def _macs(
    name: str,
    category: str,
    arguments: Mapping[str, Any],
    use: Any,
    outputs: list[formulas.TensorUse],
) -> int | None:
    out = outputs[0].shape if outputs else None
    if category == formulas.CONV:
        weight = _first(arguments, "weight")
        w = use(weight[0]).shape if weight else None
        transposed = arguments.get("transposed")
        if w is None or out is None or len(w) < 3:
            return None
        if isinstance(transposed, Mapping) and transposed.get("as_bool"):
            x = use(_first(arguments, "input")[0]).shape
            return formulas.conv_transpose_macs(x, w[1], w[2:]) if x is not None else None
        return formulas.conv_macs(out, w[2:], w[1])
    if category == formulas.CONV_TRANSPOSE:
        weight, x_names = _first(arguments, "weight"), _first(arguments, "input")
        if not weight or not x_names:
            return None
        w, x = use(weight[0]).shape, use(x_names[0]).shape
        return formulas.conv_transpose_macs(x, w[1], w[2:]) if w and x and len(w) >= 3 else None
    if category == formulas.MATMUL:
        if name == "scaled_dot_product_attention":
            q = use(_first(arguments, "query")[0]).shape
            k = use(_first(arguments, "key")[0]).shape
            if q is None or k is None or out is None:
                return None
            scores = (*q[:-1], k[-2])
            return formulas.matmul_macs(scores, q[-1]) + formulas.matmul_macs(out, k[-2])
        left = _first(arguments, "input", "self", "mat1", "batch1")
        if name == "addmm":
            left = _first(arguments, "mat1")
        elif name == "baddbmm":
            left = _first(arguments, "batch1")
        a = use(left[0]).shape if left else None
        if a is None or out is None or not a:
            return None
        return formulas.matmul_macs(out, a[-1])
    return 0


def _window(arguments: Mapping[str, Any]) -> int | None:
    kernel = arguments.get("kernel_size")
    if isinstance(kernel, Mapping) and isinstance(kernel.get("as_ints"), list):
        return formulas.elements(kernel["as_ints"])
    return None


def _has_bias(name: str, arguments: Mapping[str, Any]) -> bool:
    if name == "addmm":
        return True
    return bool(_tensor_names(arguments.get("bias")))
