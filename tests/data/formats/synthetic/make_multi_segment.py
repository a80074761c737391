"""Writes multi_segment.vgf with the VGF library's own encoder (vgfpy), for the reader tests.

Run once with ``ai-ml-sdk-vgf-library==0.11.0`` installed (the tests do not need it):
``python make_multi_segment.py ../dscnn/dscnn_int_dbg.vgf ../dscnn/dscnn_int.vgf out.vgf``,
then ``vgf_dump -i out.vgf -o out.vgf_dump.json``.

Layout: segment 0 = Graph running the DS-CNN debug module, segment 1 = Compute (a GLSL shader),
segment 2 = Graph running the plain DS-CNN module; the model input has a dynamic dimension
(shape [1, -1, 10]) and there is one constant. SPIR-V words are taken with vgfpy's decoder.
"""

from __future__ import annotations

import sys

import vgfpy  # type: ignore[import-not-found]


def spirv_words(path: str) -> list[int]:
    with open(path, "rb") as stream:
        data = stream.read()
    header = vgfpy.CreateHeaderDecoder(data, vgfpy.HeaderSize(), len(data))
    offset, size = header.GetModuleTableOffset(), header.GetModuleTableSize()
    modules = vgfpy.CreateModuleTableDecoder(data[offset : offset + size], size)
    return list(modules.getSPIRVModuleCode(0))


def main(debug_vgf: str, plain_vgf: str, output: str) -> None:
    tensor, r8 = 1000460000, 14  # VK_DESCRIPTOR_TYPE_TENSOR_ARM, VK_FORMAT_R8_SINT
    encoder = vgfpy.CreateEncoder(0)
    graph_a = encoder.AddModule(vgfpy.ModuleType.Graph, "graph_a", "main", spirv_words(debug_vgf))
    shader = encoder.AddModule(
        vgfpy.ModuleType.Compute, "shader_b", "main", vgfpy.ShaderType.Glsl, "void main() {}"
    )
    graph_c = encoder.AddModule(vgfpy.ModuleType.Graph, "graph_c", "main", spirv_words(plain_vgf))
    model_in = encoder.AddInputResource(tensor, r8, [1, -1, 10], [])
    middle = encoder.AddIntermediateResource(tensor, r8, [1, 12], [])
    model_out = encoder.AddOutputResource(tensor, r8, [1, 12], [])
    weights = encoder.AddConstantResource(r8, [4], [])
    constant = encoder.AddConstant(weights, bytes([1, 2, 3, 4]))
    in0, mid0 = encoder.AddBindingSlot(0, model_in), encoder.AddBindingSlot(1, middle)
    mid1, out1 = encoder.AddBindingSlot(0, middle), encoder.AddBindingSlot(1, model_out)
    descriptors = [encoder.AddDescriptorSetInfo([in0, mid0], 0)]
    encoder.AddSegmentInfo(graph_a, "graph_segment_0", descriptors, [in0], [mid0], [constant])
    encoder.AddSegmentInfo(
        shader,
        "compute_segment_1",
        [encoder.AddDescriptorSetInfo([mid1, out1])],
        [mid1],
        [out1],
        [],
        [4, 1, 1],
        [encoder.AddPushConstRange(32, 0, 16)],
    )
    encoder.AddSegmentInfo(graph_c, "graph_segment_2", [], [mid1], [out1], [])
    encoder.AddModelSequenceInputsOutputs([in0], ["features"], [out1], ["logits"])
    encoder.Finish()
    with open(output, "wb") as stream:
        encoder.WriteTo(stream)


if __name__ == "__main__":
    main(*sys.argv[1:4])
