"""DEPTHWISE_CONV_2D conformance: seeded random single-op models, our kernels vs TFLite Micro."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.ir import DType, Graph, Op, Quant, Tensor
from microfuse.ops.attrs import DepthwiseAttrs
from microfuse.testing import inputs, modelgen
from microfuse.testing.stages import lower
from tests.harness import Case, case_count, check_cases
from tests.kernels.cases import (act_quant, corpus_cases, feed, float_tensor, geometry, int32_bias,
                                 int8_weights, out_quant, single_op, weight_quant)

SEED = 11


def dw_case(rng: np.random.Generator, i: int, dtype: DType) -> Case:
    g = geometry(rng)
    ic, mult = int(rng.integers(1, 9)), int(rng.choice([1, 1, 2, 3]))
    oc = ic * mult
    attrs = DepthwiseAttrs(g["padding"], g["sw"], g["sh"], mult, g["act"], g["dw"], g["dh"])
    wshape = (1, g["kh"], g["kw"], oc)
    has_bias = rng.random() < 0.8
    if dtype == DType.FLOAT32:
        x = Tensor("input", (g["n"], g["h"], g["w"], ic), dtype)
        w = float_tensor(rng, "weights", wshape, 0.5)
        b = float_tensor(rng, "bias", (oc,)) if has_bias else None
        y = Tensor("output", (), dtype)
    else:
        per_channel = rng.random() < 0.7
        xq = act_quant(rng)
        wq = weight_quant(rng, oc, 3, per_channel)
        x = Tensor("input", (g["n"], g["h"], g["w"], ic), dtype, xq)
        w = Tensor("weights", wshape, dtype, wq, int8_weights(rng, wshape))
        b = int32_bias(rng, oc, xq, wq) if has_bias else None
        y = Tensor("output", (), dtype, out_quant(rng, xq, wq, g["kh"] * g["kw"]))
    graph = single_op("DEPTHWISE_CONV_2D", [x, w, b], y, attrs)
    label = f"dw{i} {dtype} in {list(x.shape)} filter {list(wshape)} bias {has_bias} {attrs}"
    return Case(label, graph, feed(rng, graph, extreme=i % 7 == 6), None if has_bias else zero_bias_twin(graph))


def zero_bias_twin(graph: Graph) -> Graph:
    """The same op with an explicit all-zero bias: TFLM's depthwise Prepare crashes (segfault)
    on a bias-less op, and a zero bias is what a missing one means."""
    op = graph.ops[0]
    x, w = op.inputs[0], op.inputs[1]
    oc = w.shape[3]
    if x.dtype == DType.FLOAT32:
        bias = Tensor("bias", (oc,), DType.FLOAT32, data=np.zeros(oc, np.float32))
    else:
        scales = tuple(x.quant.scale[0] * s for s in w.quant.scale)
        bias = Tensor("bias", (oc,), DType.INT32, Quant(scales, (0,) * len(scales), 0 if len(scales) > 1 else None),
                      np.zeros(oc, np.int32))
    twin = Op(op.kind, [x, w, bias], op.outputs, op.attrs, name=op.name, index=0)
    return Graph([twin], graph.inputs, graph.outputs, name=graph.name)


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32], ids=str)
def test_depthwise_matches_tflm(dtype):
    rng = np.random.default_rng(SEED + (dtype == DType.FLOAT32))
    cases = [dw_case(rng, i, dtype) for i in range(case_count(12, 40))]
    check_cases(cases)


def test_depthwise_calibrated_models_match_tflm():
    """Converter-like models (calibrated activations, Glorot weights) from modelgen."""
    rng = np.random.default_rng(SEED)
    shapes = [dict(in_shape=(1, 9, 9, 8), multiplier=1, kernel=3, stride=1, activation="RELU6"),
              dict(in_shape=(1, 10, 7, 4), multiplier=2, kernel=(3, 5), stride=2, padding="VALID"),
              dict(in_shape=(2, 6, 6, 3), multiplier=1, kernel=3, dilation=2, activation="RELU"),
              dict(in_shape=(1, 5, 5, 16), multiplier=1, kernel=3, stride=2, per_channel=False)]
    cases = []
    for i, kw in enumerate(shapes):
        for dtype in (DType.INT8, DType.FLOAT32):
            graph = modelgen.depthwise(rng, dtype=dtype, **kw)
            cases.append(Case(f"modelgen dw{i} {dtype} {kw}", graph, inputs.sample(graph.inputs, rng)))
    check_cases(cases)


def test_depthwise_multiplier_comes_from_the_shapes():
    """A file whose depth_multiplier option is 1 while the filter has 2 outputs per channel
    still lowers to the real multiplier."""
    rng = np.random.default_rng(SEED)
    case = next(c for c in (dw_case(rng, i, DType.INT8) for i in range(50))
                if c.graph.ops[0].attrs.depth_multiplier == 2)
    op = case.graph.ops[0]
    op.attrs = DepthwiseAttrs(op.attrs.padding, op.attrs.stride_w, op.attrs.stride_h, 1,
                              op.attrs.activation, op.attrs.dilation_w, op.attrs.dilation_h)
    assert lower(op).params["depth_multiplier"] == 2


def test_corpus_depthwise_ops_match_tflm():
    """Each depthwise op of the corpus models, alone, on random inputs."""
    cases = corpus_cases(("DEPTHWISE_CONV_2D",), np.random.default_rng(SEED))
    assert cases
    check_cases(cases)
