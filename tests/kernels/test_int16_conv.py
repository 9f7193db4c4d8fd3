"""16x8 conformance (int16 activations, int8 weights): CONV_2D, DEPTHWISE_CONV_2D,
FULLY_CONNECTED and TRANSPOSE_CONV with an int64, int32 or no bias, seeded random shapes,
strides, dilations, paddings, activations and per-tensor / per-channel scales, against TFLite Micro."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse import ops
from microfuse.ir import DType, Quant, Tensor
from microfuse.ops.attrs import ConvAttrs, DepthwiseAttrs, FullyConnectedAttrs
from microfuse.ops.tconv import TransposeConvAttrs
from microfuse.testing.ptq import f32
from microfuse.testing.stages import lower
from tests.harness import Case, case_count, check_cases, check_graphs, failures, reference, run_cases
from tests.kernels.cases import ACTIVATIONS, feed, geometry, int8_weights, single_op, weight_quant
from tests.kernels.test_transpose_conv import out_size, tconv_graph

I16 = DType.INT16
BIASES = (DType.INT64, DType.INT32, None)


def act16(rng: np.random.Generator, scale: float | None = None) -> Quant:
    """int16 activations: symmetric (zero point 0), fine-grained scales as the converter gives."""
    return Quant((f32(scale if scale is not None else 10 ** rng.uniform(-5, -3)),), (0,))


def out16(rng: np.random.Generator, x: Quant, w: Quant, taps: float) -> Quant:
    """An output scale putting typical accumulators across the int16 range, sometimes beyond."""
    spread = 18900.0 * 73.0 * np.sqrt(taps) * x.scale[0] * float(np.median(w.scale))
    return act16(rng, spread * 3 / 32768 * 10 ** rng.uniform(-0.7, 0.7))


def bias16(rng: np.random.Generator, n: int, dtype: DType | None, x: Quant, w: Quant, taps: float):
    if dtype is None:
        return None
    data = np.round(rng.normal(0, 18900.0 * 73.0 * np.sqrt(taps), size=n)).astype(dtype.value[0])
    scales = tuple(f32(x.scale[0] * s) for s in w.scale)
    return Tensor("bias", (n,), dtype, Quant(scales, (0,) * len(scales), 0 if len(scales) > 1 else None), data)


def conv16_case(rng: np.random.Generator, i: int, kind: str, bias: DType | None) -> Case:
    g = geometry(rng)
    ic = int(rng.integers(1, 10))
    if kind == "CONV_2D":
        oc = int(rng.integers(1, 10))
        attrs, wshape, axis = ConvAttrs(g["padding"], g["sw"], g["sh"], g["act"], g["dw"], g["dh"]), \
            (oc, g["kh"], g["kw"], ic), 0
        taps = g["kh"] * g["kw"] * ic
    else:
        mult = int(rng.choice([1, 1, 2, 3]))
        oc = ic * mult
        attrs, wshape, axis = DepthwiseAttrs(g["padding"], g["sw"], g["sh"], mult, g["act"], g["dw"], g["dh"]), \
            (1, g["kh"], g["kw"], oc), 3
        taps = g["kh"] * g["kw"]
    xq, wq = act16(rng), weight_quant(rng, oc, axis, rng.random() < 0.7)
    x = Tensor("input", (g["n"], g["h"], g["w"], ic), I16, xq)
    w = Tensor("weights", wshape, DType.INT8, wq, int8_weights(rng, wshape))
    y = Tensor("output", (), I16, out16(rng, xq, wq, taps))
    graph = single_op(kind, [x, w, bias16(rng, oc, bias, xq, wq, taps)], y, attrs)
    # TFLM's depthwise crashes without a bias: it runs the same op with a zero int64 one
    zero = Tensor("bias", (oc,), DType.INT64, data=np.zeros(oc, np.int64))
    ref = single_op(kind, [x, w, zero], y, attrs) if kind != "CONV_2D" and bias is None else None
    return Case(f"{kind.lower()}{i} in {list(x.shape)} filter {list(wshape)} {attrs} bias {bias}", graph,
                feed(rng, graph, extreme=i % 7 == 6), ref)


def fc16_case(rng: np.random.Generator, i: int, bias: DType | None, depth: int | None = None) -> Case:
    batch, units = int(rng.integers(1, 4)), int(rng.integers(1, 20))
    depth = depth or int(rng.integers(1, 40))
    xq, wq = act16(rng), weight_quant(rng, units, 0, rng.random() < 0.5)
    x = Tensor("input", (batch, depth), I16, xq)
    w = Tensor("weights", (units, depth), DType.INT8, wq, int8_weights(rng, (units, depth)))
    y = Tensor("output", (), I16, out16(rng, xq, wq, depth))
    attrs = FullyConnectedAttrs(str(rng.choice(ACTIVATIONS)))
    graph = single_op("FULLY_CONNECTED", [x, w, bias16(rng, units, bias, xq, wq, depth)], y, attrs)
    return Case(f"fc{i} in {list(x.shape)} weights {[units, depth]} {attrs} bias {bias}", graph,
                feed(rng, graph, extreme=i % 7 == 6))


def tconv16_case(rng: np.random.Generator, i: int, bias: DType | None) -> Case:
    n, h, w_ = int(rng.choice([1, 1, 2])), int(rng.integers(1, 8)), int(rng.integers(1, 8))
    kh, kw, sh, sw = (int(v) for v in rng.integers(1, [6, 6, 4, 4]))
    padding = str(rng.choice(["SAME", "VALID"]))
    ic, oc = int(rng.integers(1, 10)), int(rng.integers(1, 10))
    out = (n, out_size(rng, h, kh, sh, padding), out_size(rng, w_, kw, sw, padding), oc)
    taps = max(1.0, kh * kw * ic / (sh * sw))
    xq, wq = act16(rng), weight_quant(rng, oc, 0, rng.random() < 0.7)
    x = Tensor("input", (n, h, w_, ic), I16, xq)
    wt = Tensor("weights", (oc, kh, kw, ic), DType.INT8, wq, int8_weights(rng, (oc, kh, kw, ic)))
    y = Tensor("output", out, I16, out16(rng, xq, wq, taps))
    attrs = TransposeConvAttrs(padding, sw, sh)
    b = bias16(rng, oc, bias, xq, wq, taps)
    if bias == DType.INT16:  # TFLM widens it to int64
        b.data = np.clip(b.data.astype(np.int64) // 64, -32768, 32767).astype(np.int16)
    graph = tconv_graph(x, wt, b, y, attrs)
    # TFLM's 16x8 TRANSPOSE_CONV crashes without a bias (it reads the bias's type): a zero one
    zero = Tensor("bias", (oc,), DType.INT64, data=np.zeros(oc, np.int64))
    ref = tconv_graph(x, wt, zero, y, attrs) if bias is None else None
    return Case(f"tconv{i} in {list(x.shape)} out {list(out)} {attrs} bias {bias}", graph,
                feed(rng, graph, extreme=i % 7 == 6), ref)


def cases(kind: str, bias: DType | None, rng: np.random.Generator, n: int) -> list[Case]:
    if kind == "FULLY_CONNECTED":
        return [fc16_case(rng, i, bias) for i in range(n)]
    if kind == "TRANSPOSE_CONV":
        return [tconv16_case(rng, i, bias) for i in range(n)]
    return [conv16_case(rng, i, kind, bias) for i in range(n)]


KINDS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")


COMBOS = [(k, b) for k in KINDS for b in BIASES if (k, b) != ("DEPTHWISE_CONV_2D", DType.INT32)]


@pytest.mark.parametrize("kind,bias", COMBOS, ids=[f"{k}-{b}" for k, b in COMBOS])
def test_16x8_matches_tflm(kind, bias):
    rng = np.random.default_rng(1700 + 10 * KINDS.index(kind) + BIASES.index(bias))
    check_cases(cases(kind, bias, rng, case_count(12, 30)))


@pytest.mark.parametrize("bias", (DType.INT64, DType.INT16, None), ids=str)
def test_16x8_transpose_conv_matches_tflm(bias):
    rng = np.random.default_rng(1750 + (DType.INT64, DType.INT16, None).index(bias))
    check_cases(cases("TRANSPOSE_CONV", bias, rng, case_count(12, 30)))


FAST = [(k, b) for k in ("CONV_2D", "FULLY_CONNECTED") for b in BIASES]


@pytest.mark.parametrize("kind,bias", FAST, ids=[f"{k}-{b}" for k, b in FAST])
def test_16x8_fast_kernel_matches_tflm(kind, bias):
    """mf_conv2d_s16_dsp (above --optimize size; its host build runs the C twin of SMLAD)."""
    rng = np.random.default_rng(1760 + 3 * FAST.index((kind, bias)))
    found = cases(kind, bias, rng, case_count(12, 30))
    kernels = [lower(c.graph.ops[0], "speed").kernel for c in found]
    dilated = [getattr(c.graph.ops[0].attrs, "dilation_w", 1) > 1 for c in found]  # rows not adjacent
    assert kernels == ["mf_conv2d_s16" if d else "mf_conv2d_s16_dsp" for d in dilated]
    check_cases(found, "speed")


def test_16x8_fast_kernel_sums_in_int64_where_int32_could_overflow():
    """Tall windows whose sums can pass 2^31 (all-extreme inputs): the fast kernel moves each
    window row's int32 sums to int64; an FC too deep for one row's int32 sum runs the reference."""
    rng = np.random.default_rng(1790)
    found = []
    for i in range(4):
        ic, kh = int(rng.integers(64, 100)), int(rng.integers(10, 14))
        xq, wq = act16(rng), weight_quant(rng, 4, 0, True)
        x = Tensor("input", (1, kh + 2, 3, ic), I16, xq)
        wshape = (int(rng.integers(1, 9)), kh, 1, ic)
        wq = weight_quant(rng, wshape[0], 0, True)
        data = int8_weights(rng, wshape)
        data[rng.random(wshape) < 0.9] = -128  # sums far past 2^31
        w = Tensor("weights", wshape, DType.INT8, wq, data)
        # an output scale that keeps those sums inside the int16 range (no saturation hides them)
        y = Tensor("output", (), I16, act16(rng, xq.scale[0] * max(wq.scale) * kh * ic * 32768 * 128 / 20000))
        graph = single_op("CONV_2D", [x, w, bias16(rng, wshape[0], DType.INT64, xq, wq, kh * ic)], y,
                          ConvAttrs("VALID", 1, 1))
        found.append(Case(f"tall{i}", graph, [np.full(x.shape, -32768 if i % 2 else 32767, np.int16)]))
    assert all(lower(c.graph.ops[0], "speed").params["narrow"] == 0 for c in found)
    deep = fc16_case(rng, 0, DType.INT64, depth=600)
    deep.graph.ops[0].inputs[1].data[0, 0] = 127
    assert lower(deep.graph.ops[0], "speed").kernel == "mf_fc_s16"
    check_cases(found + [deep], "speed")
