"""Conformance of QUANTIZE between int16 and int8 / int16 / int32, float32 -> int16 and DEQUANTIZE
int16 -> float32 against TFLite Micro (quantize_common.cc, dequantize_common.cc), seeded: random
shapes and quantizations, random and all-minimum / all-maximum inputs."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Quant
from microfuse.lower import lower
from microfuse.testing import inputs, stages
from microfuse.testing.modelgen import merge
from microfuse.testing.ptq import f32
from tests.harness import case_count, check_graph
from tests.kernels.cases import single, tensor

I8, I16, I32, F32 = DType.INT8, DType.INT16, DType.INT32, DType.FLOAT32
PAIRS = [(I16, I8), (I8, I16), (I16, I16), (I16, I32), (I32, I16), (I8, I32), (I32, I8), (F32, I16)]
# scale ranges like the converter's: int16 activations are fine-grained, int32 ones the
# accumulator scale (input x filter); zero points of int16 and int32 tensors are 0 in converted
# models, but TFLM takes any, so int16 ones are random too
SCALES = {I8: (-2.5, -0.5), I16: (-5.0, -2.0), I32: (-8.0, -5.0)}
ZERO_POINTS = {I8: (-128, 128), I16: (-300, 300), I32: (0, 1)}


def quant(rng: np.random.Generator, dtype: DType) -> Quant | None:
    if dtype == F32:
        return None
    lo, hi = SCALES[dtype]
    return Quant((f32(10 ** rng.uniform(lo, hi)),), (int(rng.integers(*ZERO_POINTS[dtype])),))


def quantize_case(rng: np.random.Generator, src: DType, dst: DType):
    shape = tuple(int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 5))))
    x, y = tensor("x", shape, src, quant(rng, src)), tensor("y", shape, dst, quant(rng, dst))
    if src != F32 and rng.random() < 0.3:  # scales close together: multipliers near 1, both ways
        y.quant = Quant((f32(x.quant.scale[0] * 10 ** rng.uniform(-0.3, 0.3)),), y.quant.zero_point)
    return single("QUANTIZE", [x], y)


def check_all(graphs, rng):
    """Random samples and all-minimum / all-maximum inputs, one merged model."""
    graph = merge(graphs)
    check_graph(graph, samples=inputs.samples(graph, 2, rng), float_scale=1.0)


@pytest.mark.parametrize("src,dst", PAIRS, ids=[f"{s}-{d}" for s, d in PAIRS])
def test_quantize_matches_tflm(src, dst):
    rng = np.random.default_rng(1600 + PAIRS.index((src, dst)))
    graphs = [quantize_case(rng, src, dst) for _ in range(case_count(8))]
    if src == F32:  # floats across the whole int16 range and beyond it (saturation)
        for g in graphs:
            g.ops[0].outputs[0].quant = Quant((f32(10 ** rng.uniform(-4.5, -3.5)),), (int(rng.integers(-50, 50)),))
    check_all(graphs, rng)


def test_dequantize_int16_matches_tflm():
    rng = np.random.default_rng(1620)
    graphs = []
    for _ in range(case_count(8)):
        shape = tuple(int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 5))))
        graphs.append(single("DEQUANTIZE", [tensor("x", shape, I16, quant(rng, I16))], tensor("y", shape, F32)))
    check_all(graphs, rng)


def test_int16_kernels_are_chosen():
    rng = np.random.default_rng(3)
    assert lower(quantize_case(rng, I16, I8).ops[0]).kernel == "mf_requantize_s16_s8"
    assert lower(quantize_case(rng, F32, I16).ops[0]).kernel == "mf_quantize_f32_s16"


def test_unsupported_pairs_say_so():
    rng = np.random.default_rng(4)
    op = quantize_case(rng, I32, I32).ops[0]
    assert ops.problems(op) == ["QUANTIZE from int32 to int32 is not supported"]
    g = quantize_case(rng, I16, I8)
    g.ops[0].inputs[0].quant = None
    assert "int16 tensor 'x' has no quantization parameters" in ops.problems(g.ops[0])


def test_the_library_api_has_int16_types(tmp_path):
    rng = np.random.default_rng(5)
    graph = quantize_case(rng, I16, I16)
    stages.build(graph, tmp_path)
    header = (tmp_path / "model.h").read_text()
    x = graph.inputs[0]
    assert "typedef int16_t model_input0_t;" in header and "typedef int16_t model_output0_t;" in header
    assert f"#define MODEL_INPUT0_BYTES {2 * x.elements}u" in header
    assert f"#define MODEL_INPUT0_ZERO_POINT {x.quant.zero_point[0]}" in header
