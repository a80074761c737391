"""Run inside the Model Explorer venv (it has ``onnx``): write an ONNX model with hard names.

    python make_tricky_onnx.py EMPTY_NAME.onnx NO_NAME.onnx

Top-level nodes: unnamed ones, a duplicated name, a node literally named ``node_1`` (what the
adapter's renaming would also produce), an ``If`` whose branches hold unnamed and duplicated
nodes (visited between the top-level nodes by the adapter's walk, sharing its counters), and a
``Loop`` with an unnamed body node. The first file's graph name is recorded but empty, the
second's is not recorded at all (``onnx.checker`` would refuse both, so it is not run; Model
Explorer's adapter loads them, naming the graphs ``""`` and ``<main>``).
"""

from __future__ import annotations

import sys

import onnx  # type: ignore[import-not-found]
from onnx import TensorProto, helper  # type: ignore[import-not-found]


def branch(name: str, value: float) -> onnx.GraphProto:
    constant = helper.make_tensor(f"{name}_c", TensorProto.FLOAT, [1], [value])
    nodes = [
        helper.make_node("Constant", [], [f"{name}_k"], value=constant),
        helper.make_node("Add", ["x", f"{name}_k"], [f"{name}_y0"], name="add"),
        helper.make_node("Relu", [f"{name}_y0"], [f"{name}_y1"], name="add"),
        helper.make_node("Identity", [f"{name}_y1"], [f"{name}_out"]),
    ]
    output = helper.make_tensor_value_info(f"{name}_out", TensorProto.FLOAT, [1])
    return helper.make_graph(nodes, name, [], [output])


def loop_body() -> onnx.GraphProto:
    inputs = [
        helper.make_tensor_value_info("i", TensorProto.INT64, []),
        helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
        helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [1]),
    ]
    nodes = [
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        helper.make_node("Add", ["acc_in", "x"], ["acc_out"], name="node"),
    ]
    outputs = [
        helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
        helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [1]),
    ]
    return helper.make_graph(nodes, "body", inputs, outputs)


def model() -> onnx.ModelProto:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Relu", ["a"], ["b"], name="dup"),
        helper.make_node("Relu", ["b"], ["c"], name="dup"),
        helper.make_node("Relu", ["c"], ["d"]),
        helper.make_node("Greater", ["d", "zero"], ["flag"], name="node_1"),
        helper.make_node(
            "If", ["flag"], ["e"], then_branch=branch("then", 1.0), else_branch=branch("else", 2.0)
        ),
        helper.make_node("Relu", ["e"], ["f"]),
        helper.make_node("Loop", ["trips", "", "f"], ["g"], body=loop_body()),
        helper.make_node("Relu", ["g"], ["y"], name="dup"),
        helper.make_node("Sigmoid", ["y"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes,
        "",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1])],
        initializer=[
            helper.make_tensor("zero", TensorProto.FLOAT, [1], [0.0]),
            helper.make_tensor("trips", TensorProto.INT64, [], [2]),
        ],
    )
    made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    made.ir_version = 8
    return made


if __name__ == "__main__":
    onnx.save(model(), sys.argv[1])
    unnamed = model()
    unnamed.graph.ClearField("name")
    onnx.save(unnamed, sys.argv[2])
