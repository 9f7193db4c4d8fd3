"""SPACE_TO_BATCH_ND -> conv / depthwise -> BATCH_TO_SPACE_ND folded into one dilated conv: where it
applies (three kernel calls become one) and where it must not.

TFLM's SPACE_TO_BATCH_ND pads with a value it never initializes (lower/data.py: int8 and float
alike; what it reads depends on earlier runs in the process), so the chains that read padding
(TensorFlow's SAME lowering) are compared with microfuse's own unfused run, which pads with
the zero point (0.0) as TFLite does; every other model is compared with TFLM."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.pipeline import Options
from microfuse.ir import DType
from microfuse.ops.attrs import ConvAttrs, DepthwiseAttrs, NoAttrs
from microfuse.testing import inputs
from microfuse.testing.host import run_graph
from microfuse.testing.modelgen import Net, merge

from _fusion import SIZE, calls, fused
from tests.harness import always_fuse, check_graph  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("always_fuse")
INT8, FLOAT32 = DType.INT8, DType.FLOAT32
UNFUSED = Options(fuse=False, optimize="size")


def ints(net: Net, values, what: str):
    return net.const(np.array(values, np.int32), what)


def dilated(net: Net, x, kind: str, block, pads, crops, block2=None, stride: int = 1, act: str = "NONE"):
    """TensorFlow's space-to-batch form of a dilated conv (k = 3)."""
    s = net.op("SPACE_TO_BATCH_ND", [x, ints(net, block, "block"), ints(net, pads, "paddings")], NoAttrs())
    c = s.shape[3]
    if kind == "CONV_2D":
        y = net.op("CONV_2D", [s, net.weights((4, 3, 3, c), 9 * c, 0), net.bias(4)],
                   ConvAttrs("VALID", stride, stride, act), per_channel=True)
    else:
        y = net.op("DEPTHWISE_CONV_2D", [s, net.weights((1, 3, 3, c), 9, 3), net.bias(c)],
                   DepthwiseAttrs("VALID", stride, stride, 1, act), per_channel=True)
    return y, net.op("BATCH_TO_SPACE_ND", [y, ints(net, block2 or block, "block"), ints(net, crops, "crops")],
                     NoAttrs())


def chains(seed: int, dtype: DType, same: bool):
    """conv, rate 2, on 9x10 (TF pads 9 up to a multiple of 2 and crops it back); depthwise,
    rate 3, on 9x9. `same`: SAME convolutions (padding read), else VALID."""
    rng = np.random.default_rng(seed)
    graphs = []
    net = Net("conv_rate2", rng)
    x = net.input((1, 9, 10, 3))
    pads, crops = ([[2, 3], [2, 2]], [[0, 1], [0, 0]]) if same else ([[0, 1], [0, 0]], [[0, 1], [0, 0]])
    graphs.append(net.finish([dilated(net, x, "CONV_2D", [2, 2], pads, crops, act="RELU")[1]], dtype))
    net = Net("dw_rate3", rng)
    x = net.input((1, 9, 9, 4))
    pads, crops = ([[3, 3], [3, 3]], [[0, 0], [0, 0]]) if same else ([[0, 0], [0, 0]], [[0, 0], [0, 0]])
    graphs.append(net.finish([dilated(net, x, "DEPTHWISE_CONV_2D", [3, 3], pads, crops)[1]], dtype))
    return merge(graphs)


def same_as_unfused(graph, rng) -> None:
    feeds = [inputs.sample(graph.inputs, rng) for _ in range(3)]
    plain, ours = run_graph(graph, feeds, options=UNFUSED), run_graph(graph, feeds, options=SIZE)
    for a, b in zip(plain, ours):
        for x, y in zip(a, b):
            np.testing.assert_allclose(y, x, rtol=1e-6, atol=0)  # int8: equal; float: the same sums


@pytest.mark.parametrize("dtype", [INT8, FLOAT32])
@pytest.mark.parametrize("same", [False, True], ids=["valid", "same"])
def test_space_to_batch_conv_becomes_one_dilated_conv(dtype, same):
    graph = chains(21, dtype, same)
    assert len(calls(graph, UNFUSED)) == 6
    after, decisions = fused(graph)
    assert len(calls(graph)) == 2  # 6 -> 2
    assert [(d["ops"], d["decision"]) for d in decisions] == [([0, 1, 2], "fused"), ([3, 4, 5], "fused")]
    conv, dw = sorted(after.ops, key=lambda op: op.kind)
    assert (conv.attrs.dilation_h, conv.attrs.dilation_w, dw.attrs.dilation_h) == (2, 2, 3)
    assert conv.attrs.pads == ((2, 2, 2, 2) if same else (0, 0, 0, 0))
    assert dw.attrs.pads == ((3, 3, 3, 3) if same else (0, 0, 0, 0))
    if same:
        same_as_unfused(graph, np.random.default_rng(22))
    else:
        check_graph(graph, np.random.default_rng(22))


def blocked(seed: int):
    """Block shapes that differ; an inner conv with stride 2; the conv output also a graph
    output; crops that cut into the image (the dilated conv would need negative padding)."""
    rng = np.random.default_rng(seed)
    graphs = []
    net = Net("blocks", rng)
    x = net.input((1, 8, 8, 3))
    graphs.append(net.finish([dilated(net, x, "CONV_2D", [2, 2], [[0, 0], [0, 0]], [[0, 0], [0, 0]],
                                      block2=[1, 1])[1]], INT8))
    net = Net("stride", rng)
    x = net.input((1, 12, 12, 3))
    graphs.append(net.finish([dilated(net, x, "CONV_2D", [2, 2], [[0, 0], [0, 0]], [[0, 0], [0, 0]],
                                      stride=2)[1]], INT8))
    net = Net("output", rng)
    x = net.input((1, 8, 8, 3))
    inner, out = dilated(net, x, "DEPTHWISE_CONV_2D", [2, 2], [[0, 0], [0, 0]], [[0, 0], [0, 0]])
    graphs.append(net.finish([out, inner], INT8))
    net = Net("crop", rng)
    x = net.input((1, 8, 8, 3))
    graphs.append(net.finish([dilated(net, x, "CONV_2D", [2, 2], [[0, 0], [0, 0]], [[1, 1], [0, 0]])[1]], INT8))
    return merge(graphs)


def test_dilation_fold_declines_inexact_chains():
    graph = blocked(23)
    before = len(calls(graph, UNFUSED))
    _, decisions = fused(graph)
    assert len(calls(graph)) == before == 12
    reasons = {tuple(d["ops"]): d["reason"] for d in decisions if d["pattern"] == "dilate"}
    assert all(d["decision"] == "declined" for d in decisions if d["pattern"] == "dilate")
    assert "block shapes differ" in reasons[(0, 1, 2)]
    assert "stride 1" in reasons[(3, 4, 5)]
    assert "graph output" in reasons[(6, 7, 8)]
    assert "negative padding" in reasons[(9, 10, 11)]
    check_graph(graph, np.random.default_rng(24))
