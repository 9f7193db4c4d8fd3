"""TRANSPOSE_CONV conformance: seeded random single-op models (int8 per-tensor and per-channel,
float32; SAME and VALID, strides, every output size the input admits, bias or none), our kernels
against TFLite Micro."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Graph, Op, Tensor
from microfuse.ops.tconv import TransposeConvAttrs
from microfuse.testing.stages import lower
from tests.harness import Case, case_count, check_cases, check_graphs, failures, reference, run_cases
from tests.kernels.cases import (ACTIVATIONS, act_quant, feed, float_tensor, int32_bias, int8_weights,
                                 out_quant, weight_quant)

SEED = 1200


def out_size(rng: np.random.Generator, n: int, k: int, stride: int, padding: str) -> int:
    """An output length whose windowed size (TFLM's padding rule) is the input's `n`."""
    lo, hi = ((n - 1) * stride + 1, n * stride) if padding == "SAME" else ((n - 1) * stride + k, n * stride + k - 1)
    return int(rng.integers(lo, hi + 1))


def tconv_graph(x: Tensor, w: Tensor, b: Tensor | None, y: Tensor, attrs: TransposeConvAttrs) -> Graph:
    shape = Tensor("output_shape", (4,), DType.INT32, data=np.array(y.shape, np.int32))
    op = Op("TRANSPOSE_CONV", [shape, w, x, *([b] if b is not None else [])], [y], attrs,
            name="transpose_conv", index=0)
    graph = Graph([op], [x], [y], name="transpose_conv")
    graph.verify()
    assert not ops.problems(op), ops.problems(op)
    return graph


def tconv_case(rng: np.random.Generator, i: int, dtype: DType) -> Case:
    n = int(rng.choice([1, 1, 1, 2]))
    h, w_ = int(rng.integers(1, 8)), int(rng.integers(1, 8))
    kh, kw = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    sh, sw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    padding = str(rng.choice(["SAME", "VALID"]))
    ic, oc = int(rng.integers(1, 10)), int(rng.integers(1, 10))
    out = (n, out_size(rng, h, kh, sh, padding), out_size(rng, w_, kw, sw, padding), oc)
    act = str(rng.choice(ACTIVATIONS)) if dtype == DType.FLOAT32 else "NONE"
    attrs = TransposeConvAttrs(padding, sw, sh, act)
    wshape = (oc, kh, kw, ic)
    has_bias = rng.random() < 0.8
    if dtype == DType.FLOAT32:
        x = Tensor("input", (n, h, w_, ic), dtype)
        w = float_tensor(rng, "weights", wshape, 0.5)
        b = float_tensor(rng, "bias", (oc,)) if has_bias else None
        y = Tensor("output", out, dtype)
    else:
        xq, wq = act_quant(rng), weight_quant(rng, oc, 0, rng.random() < 0.7)
        x = Tensor("input", (n, h, w_, ic), dtype, xq)
        w = Tensor("weights", wshape, dtype, wq, int8_weights(rng, wshape))
        b = int32_bias(rng, oc, xq, wq) if has_bias else None
        # taps per output pixel, with the input zero point's and the bias's share of the spread
        taps = max(1.0, kh * kw * ic / (sh * sw)) * (1 + (xq.zero_point[0] / 74) ** 2)
        if has_bias:
            taps += float(np.std(b.data.astype(np.float64) * np.asarray(b.quant.scale) / xq.scale[0]
                                 / np.median(wq.scale)) / (74 * 73)) ** 2
        y = Tensor("output", out, dtype, out_quant(rng, xq, wq, taps))
    graph = tconv_graph(x, w, b, y, attrs)
    label = f"tconv{i} {dtype} in {list(x.shape)} filter {list(wshape)} out {list(out)} {attrs} bias {has_bias}"
    return Case(label, graph, feed(rng, graph, extreme=i % 7 == 6))


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32], ids=str)
def test_transpose_conv_matches_tflm(dtype):
    rng = np.random.default_rng(SEED + (dtype == DType.FLOAT32))
    cases = [tconv_case(rng, i, dtype) for i in range(case_count(16, 40))]
    assert {c.graph.ops[0].attrs.padding for c in cases} == {"SAME", "VALID"}
    assert any(len(c.graph.ops[0].inputs) == 3 for c in cases)  # no bias runs too
    check_cases(cases)


def test_transpose_conv_through_the_pipeline():
    """Built as a model (planner, emitter), several cases merged into one build."""
    rng = np.random.default_rng(SEED + 2)
    graphs = [tconv_case(rng, i, dt).graph for i, dt in enumerate([DType.INT8, DType.FLOAT32] * 3)]
    check_graphs(graphs, rng)


def test_transpose_conv_is_per_channel_sensitive():
    """The test itself can fail: a wrong scale on one channel must show as a mismatch."""
    rng = np.random.default_rng(SEED)
    case = next(c for c in (tconv_case(rng, i, DType.INT8) for i in range(80))
                if c.graph.ops[0].inputs[1].quant.per_axis and c.graph.outputs[0].elements > 20
                and np.mean(np.abs(reference(c.graph, [c.inputs])[0][0].astype(int)) < 120) > 0.5)
    w = case.graph.ops[0].inputs[1]
    good = w.quant
    w.quant = type(good)((good.scale[0] * 1.5, *good.scale[1:]), good.zero_point, good.axis)
    ours = run_cases([case])
    w.quant = good
    assert failures([case], ours) != []


def test_quantized_fused_activation_is_refused():
    rng = np.random.default_rng(SEED)
    case = tconv_case(rng, 0, DType.INT8)
    op = case.graph.ops[0]
    relu = Op(op.kind, op.inputs, op.outputs, TransposeConvAttrs(op.attrs.padding, op.attrs.stride_w,
                                                                 op.attrs.stride_h, "RELU"), name="t")
    assert any("TFLM ignores it" in p for p in ops.problems(relu))


def test_lowering_takes_tflm_padding_and_zero_bias():
    rng = np.random.default_rng(SEED + 3)
    x = Tensor("input", (1, 3, 3, 2), DType.INT8, act_quant(rng))
    wq = weight_quant(rng, 4, 0, True)
    w = Tensor("weights", (4, 3, 3, 2), DType.INT8, wq, int8_weights(rng, (4, 3, 3, 2)))
    y = Tensor("output", (1, 6, 6, 4), DType.INT8, out_quant(rng, x.quant, wq, 4))
    call = lower(tconv_graph(x, w, None, y, TransposeConvAttrs("SAME", 2, 2)).ops[0])
    # SAME on a 6-long output, 3 taps, stride 2: 3 windows, total padding 2*2+3-6 = 1, 0 before
    assert (call.params["pad_h"], call.params["pad_w"]) == (0, 0)
    assert call.inputs == [x] and not call.params["bias"].data.any()
    assert (call.params["act_min"], call.params["act_max"]) == (-128, 127)
