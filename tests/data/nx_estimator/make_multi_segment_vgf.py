"""Write ``dscnn_multi_segment.vgf`` with the ML SDK VGF library (``vgfpy``).

Run with a Python that has ``ai-ml-sdk-vgf-library==0.11.0`` installed:
``python make_multi_segment_vgf.py dscnn_int_dbg.vgf dscnn_multi_segment.vgf``.

Three segments: ``graph_a`` (Graph, the DS-CNN module), ``shader`` (Compute,
a GLSL shader) and ``graph_b`` (Graph, the same DS-CNN SPIR-V as a second
module). Resources: one input, one intermediate and one output tensor. It is
a container for testing segment handling (not a runnable model: the graph
modules' constants are left out).
"""

from __future__ import annotations

import sys

import vgfpy  # type: ignore[import-not-found]

VK_DESCRIPTOR_TYPE_TENSOR_ARM = 1000460000
VK_FORMAT_R8_SINT = 14


def spirv_words(path: str) -> list[int]:
    with open(path, "rb") as stream:
        data = stream.read()
    header = vgfpy.CreateHeaderDecoder(data, 128, len(data))
    offset, size = header.GetModuleTableOffset(), header.GetModuleTableSize()
    modules = vgfpy.CreateModuleTableDecoder(data[offset : offset + size], size)
    return [int(word) for word in modules.getSPIRVModuleCode(0)]


def main(source: str, target: str) -> None:
    words = spirv_words(source)
    encoder = vgfpy.CreateEncoder(275)
    graph = vgfpy.ModuleType.Graph
    graph_a = encoder.AddModule(graph, "graph_partition_0", "graph_partition_0", words)
    shader = encoder.AddModule(
        vgfpy.ModuleType.Compute, "shader", "main", vgfpy.ShaderType.Glsl, "void main() {}"
    )
    graph_b = encoder.AddModule(graph, "graph_partition_1", "graph_partition_0", words)
    tensor = VK_DESCRIPTOR_TYPE_TENSOR_ARM
    model_in = encoder.AddInputResource(tensor, VK_FORMAT_R8_SINT, [1, 1, 49, 10], [])
    middle = encoder.AddIntermediateResource(tensor, VK_FORMAT_R8_SINT, [1, 12], [])
    model_out = encoder.AddOutputResource(tensor, VK_FORMAT_R8_SINT, [1, 12], [])
    in_a = encoder.AddBindingSlot(0, model_in)
    out_a = encoder.AddBindingSlot(1, middle)
    in_s = encoder.AddBindingSlot(0, middle)
    out_s = encoder.AddBindingSlot(1, middle)
    in_b = encoder.AddBindingSlot(0, middle)
    out_b = encoder.AddBindingSlot(1, model_out)
    encoder.AddSegmentInfo(graph_a, "graph_a", [], [in_a], [out_a])
    shader_set = encoder.AddDescriptorSetInfo([in_s, out_s], 0)
    encoder.AddSegmentInfo(shader, "shader", [shader_set], [in_s], [out_s], [], [1, 1, 1])
    encoder.AddSegmentInfo(graph_b, "graph_b", [], [in_b], [out_b])
    encoder.AddModelSequenceInputsOutputs([in_a], ["input_0"], [out_b], ["output_0"])
    encoder.Finish()
    with open(target, "wb") as stream:
        assert encoder.WriteTo(stream)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
