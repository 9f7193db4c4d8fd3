"""PAD folded into the next conv / depthwise / max pool as explicit padding: where it applies (one
kernel call less, no padded copy), where it must not, and that the planner's in-place overlap
stays safe with the explicit window. Each model bit-exact (float: 1e-5) with TFLM unfused."""

from __future__ import annotations

from _fusion import NO_CASCADE

import numpy as np
import pytest

from microfuse.pipeline import Options
from microfuse.ir import DType
from microfuse.ops.attrs import ConvAttrs, DepthwiseAttrs, NoAttrs, PoolAttrs
from microfuse.ops.common import window_pads
from microfuse.ops.internal import parts
from microfuse.testing import ptq
from microfuse.testing.modelgen import Net, merge
from microfuse.testing.stages import compile_model

from _fusion import calls, fused
from tests.harness import always_fuse, check_graph  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("always_fuse")
INT8, FLOAT32 = DType.INT8, DType.FLOAT32
UNFUSED = Options(fuse=False, optimize="size")


def pad(net: Net, x, hw=((1, 2), (0, 1)), channels=(0, 0)):
    pads = np.array([(0, 0), hw[0], hw[1], channels], np.int32)
    return net.op("PAD", [x, net.const(pads, "paddings")], NoAttrs())


def conv(net: Net, x, out_ch=4, k=3, padding="SAME", stride=1, act="NONE"):
    c = x.shape[3]
    return net.op("CONV_2D", [x, net.weights((out_ch, k, k, c), k * k * c, 0), net.bias(out_ch)],
                  ConvAttrs(padding, stride, stride, act), per_channel=True)


def dw(net: Net, x, padding="VALID", stride=1):
    c = x.shape[3]
    return net.op("DEPTHWISE_CONV_2D", [x, net.weights((1, 3, 3, c), 9, 3), net.bias(c)],
                  DepthwiseAttrs(padding, stride, stride, 1), per_channel=True)


def folding(seed: int, dtype: DType):
    """PAD -> conv (SAME, stride 2: the pads add up); PAD -> depthwise (VALID); conv+RELU ->
    PAD -> max pool (the RELU's clamp is at least the pad value, the zero point)."""
    rng = np.random.default_rng(seed)
    graphs = []
    net = Net("pad_conv", rng)
    x = net.input((1, 7, 6, 3))
    graphs.append(net.finish([conv(net, pad(net, x), stride=2)], dtype))
    net = Net("pad_dw", rng)
    x = net.input((1, 5, 5, 4))
    graphs.append(net.finish([dw(net, pad(net, x, ((2, 0), (1, 1))))], dtype))
    net = Net("pad_pool", rng)
    x = net.input((1, 6, 6, 3))
    y = pad(net, conv(net, x, act="RELU"), ((1, 1), (1, 0)))
    graphs.append(net.finish([net.op("MAX_POOL_2D", [y], PoolAttrs("VALID", 2, 2, 3, 3))], dtype))
    return merge(graphs)


@pytest.mark.parametrize("dtype", [INT8, FLOAT32])
def test_pad_folds_into_conv_depthwise_and_max_pool(dtype):
    graph = folding(11, dtype)
    assert len(calls(graph, UNFUSED)) == 7
    after, decisions = fused(graph)
    kernels = calls(graph)
    # 7 -> 3: the folded max pool then joins the depthwise row by row (passes/pool_rows.py)
    assert len(kernels) == 3 and not any("pad" in k for k in kernels)
    assert [(d["pattern"], d["ops"], d["decision"]) for d in decisions] == [
        ("pad", [0, 1], "fused"), ("pad", [2, 3], "fused"), ("pad", [5, 6], "fused"),
        ("pool_rows", [4, 6], "fused")]
    ops = [*after.ops, *(part for op in after.ops for part in parts(op))]  # the pool_rows op's conv and pool
    folded = {op.kind: op for op in ops if getattr(op.attrs, "padding", None) == "EXPLICIT"}
    # SAME on the padded 10x7 input, 3x3 window, stride 2, pads (0, 1) and (1, 1) more
    assert folded["CONV_2D"].attrs.pads == (1, 3, 1, 2)
    assert window_pads(folded["DEPTHWISE_CONV_2D"]) == (2, 0, 1, 1)
    assert folded["MAX_POOL_2D"].attrs.pads == (1, 1, 1, 0)
    check_graph(graph, np.random.default_rng(12))


def blocked(seed: int):
    """PAD read by two ops; PAD output also a graph output; int8 max pool whose input has no
    clamp (the pad value, its zero point, may exceed values); channel padding; average pool
    (counts only in-image taps: never a candidate)."""
    rng = np.random.default_rng(seed)
    graphs = []
    net = Net("two", rng)
    x = net.input((1, 5, 5, 3))
    p = pad(net, x)
    graphs.append(net.finish([conv(net, p), dw(net, p)], INT8))
    net = Net("output", rng)
    x = net.input((1, 5, 5, 3))
    p = pad(net, x)
    graphs.append(net.finish([conv(net, p), p], INT8))
    net = Net("max_no_clamp", rng)
    x = net.input((1, 6, 6, 3))
    p = pad(net, conv(net, x), ((1, 1), (1, 1)))
    graphs.append(net.finish([net.op("MAX_POOL_2D", [p], PoolAttrs("VALID", 2, 2, 2, 2))], INT8))
    net = Net("channels", rng)
    x = net.input((1, 5, 5, 3))
    graphs.append(net.finish([conv(net, pad(net, x, channels=(0, 1)))], INT8))
    net = Net("average", rng)
    x = net.input((1, 6, 6, 3))
    p = pad(net, x, ((1, 1), (1, 1)))
    graphs.append(net.finish([net.op("AVERAGE_POOL_2D", [p], PoolAttrs("VALID", 2, 2, 3, 3))], INT8))
    return merge(graphs)


def test_pad_stays_where_folding_would_change_results():
    graph = blocked(13)
    before = len(calls(graph, UNFUSED))
    _, decisions = fused(graph)
    assert len(calls(graph)) == before == 12
    reasons = {tuple(d["ops"]): d["reason"] for d in decisions if d["pattern"] == "pad"}
    assert all(d["decision"] == "declined" for d in decisions if d["pattern"] == "pad")
    assert "2 consumers" in reasons[(0, 1)] and "2 consumers" in reasons[(0, 2)]
    assert "graph output" in reasons[(3, 4)]
    assert "may exceed" in reasons[(6, 7)]
    assert "height/width" in reasons[(8, 9)]
    assert (10, 11) not in reasons
    check_graph(graph, np.random.default_rng(14))


def test_max_pool_after_a_pad_of_minus_128_folds():
    """An int8 PAD whose zero point is -128 pads with the least int8 value: max pool folds even
    without a clamp before it."""
    rng = np.random.default_rng(15)
    net = Net("floor", rng)
    x = net.input((1, 6, 6, 3))
    p = pad(net, x, ((1, 1), (1, 1)))
    y = net.op("MAX_POOL_2D", [p], PoolAttrs("SAME", 2, 2, 3, 3))
    graph = net.finish([y], INT8, [ptq.range_quant(0.0, 4.0)])  # zero point -128
    assert graph.inputs[0].quant.zero_point == (-128,)
    after, decisions = fused(graph)
    assert [d["decision"] for d in decisions] == ["fused"] and len(after.ops) == 1
    check_graph(graph, np.random.default_rng(16))


def test_folded_pad_conv_is_planned_in_place_and_stays_exact():
    """conv 1x1 (16 channels) -> PAD -> conv 3x3 (4 channels): after the fold, the second conv
    reads the first conv's output directly with explicit pads; the planner overlaps its output
    with that dying input using the explicit window, and the result stays bit-exact."""
    rng = np.random.default_rng(17)
    net = Net("inplace", rng)
    x = net.input((1, 12, 12, 4))
    h = conv(net, x, out_ch=16, k=1, padding="VALID", act="RELU")
    y = conv(net, pad(net, h, ((1, 1), (1, 1))), out_ch=4, k=3, padding="VALID")
    graph = net.finish([y], INT8)
    compiled = compile_model(graph, Options(optimize="size", passes=NO_CASCADE))
    assert len(compiled.calls) == 2 and len(compile_model(graph, UNFUSED).calls) == 3
    second = compiled.graph.ops[1]
    assert second.attrs.padding == "EXPLICIT" and second.attrs.pads == (1, 1, 1, 1)
    offsets = compiled.plan.offsets
    src, dst = second.inputs[0], second.outputs[0]
    lo, hi = max(offsets[src], offsets[dst]), min(offsets[src] + src.nbytes, offsets[dst] + dst.nbytes)
    assert lo < hi, "the folded conv's output should overlap its dying input"
    check_graph(graph, np.random.default_rng(18), samples=4)
