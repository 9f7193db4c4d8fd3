"""Float batch-norm folding: MUL / ADD by per-channel constants after a conv, depthwise or
fully-connected op folded into its weights and bias — where it applies (fewer calls, within
1e-5 of TFLM on the unfolded model) and where it must not."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.pipeline import Options
from microfuse.ir import DType
from microfuse.ops.attrs import ActivationAttrs, ConvAttrs, DepthwiseAttrs, FullyConnectedAttrs
from microfuse.testing.modelgen import Net, merge

from _fusion import calls, fused
from tests.harness import always_fuse, check_graph  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("always_fuse")
FLOAT32, INT8 = DType.FLOAT32, DType.INT8
UNFUSED = Options(fuse=False, optimize="size")


def conv(net: Net, x, out_ch=4, act="NONE", bias=True):
    c = x.shape[3]
    return net.op("CONV_2D", [x, net.weights((out_ch, 3, 3, c), 9 * c, 0), net.bias(out_ch) if bias else None],
                  ConvAttrs("SAME", 1, 1, act), per_channel=True)


def const(net: Net, shape, lo=None):
    rng = net.rng
    data = rng.uniform(0.5, 2.0, size=shape) if lo == "scale" else rng.normal(0, 0.5, size=shape)
    return net.const(data.astype(np.float32), "bn")


def binary(net: Net, kind, a, b, act="NONE"):
    return net.op(kind, [a, b], ActivationAttrs(act))


def folding(seed: int):
    """conv -> MUL [C] -> ADD [1,1,1,C] with RELU6 (both fold; the RELU6 moves to the conv);
    conv without bias -> ADD(const first) ; depthwise (multiplier 2) -> MUL by one scalar;
    fully connected -> MUL [C] -> ADD [C]."""
    rng = np.random.default_rng(seed)
    graphs = []
    net = Net("conv_bn", rng)
    x = net.input((1, 6, 6, 3))
    y = binary(net, "MUL", conv(net, x), const(net, (4,), "scale"))
    graphs.append(net.finish([binary(net, "ADD", y, const(net, (1, 1, 1, 4)), "RELU6")], FLOAT32))
    net = Net("conv_shift", rng)
    x = net.input((1, 5, 5, 2))
    graphs.append(net.finish([binary(net, "ADD", const(net, (3,)), conv(net, x, 3, bias=False))], FLOAT32))
    net = Net("dw_scale", rng)
    x = net.input((1, 5, 5, 3))
    d = net.op("DEPTHWISE_CONV_2D", [x, net.weights((1, 3, 3, 6), 9, 3), net.bias(6)],
               DepthwiseAttrs("SAME", 1, 1, 2))
    graphs.append(net.finish([binary(net, "MUL", d, const(net, (1,), "scale"))], FLOAT32))
    net = Net("fc_bn", rng)
    x = net.input((1, 12))
    f = net.op("FULLY_CONNECTED", [x, net.weights((5, 12), 12, 0), net.bias(5)], FullyConnectedAttrs())
    y = binary(net, "MUL", f, const(net, (5,), "scale"))
    graphs.append(net.finish([binary(net, "ADD", y, const(net, (5,)))], FLOAT32))
    return merge(graphs)


def test_batch_norm_folds_into_weights_and_bias():
    graph = folding(31)
    assert len(calls(graph, UNFUSED)) == 10
    after, decisions = fused(graph)
    assert len(calls(graph)) == 4  # 10 -> 4: one call per conv / depthwise / fc
    assert [d["decision"] for d in decisions] == ["fused"] * 6
    first = after.ops[0]
    assert first.kind == "CONV_2D" and first.attrs.activation == "RELU6"
    assert not np.array_equal(first.inputs[1].data, graph.ops[0].inputs[1].data)
    assert graph.ops[0].attrs.activation == "NONE"  # the caller's graph is untouched
    check_graph(graph, np.random.default_rng(32), samples=4)


def blocked(seed: int):
    """conv+RELU then MUL (the clamp runs before the scale); a MUL by a full [1,H,W,C] constant
    (not per channel); the conv output also read by a second op; the conv output a graph
    output; an int8 model (scales are requantized there, nothing to fold)."""
    rng = np.random.default_rng(seed)
    graphs = []
    net = Net("relu_first", rng)
    x = net.input((1, 5, 5, 3))
    graphs.append(net.finish([binary(net, "MUL", conv(net, x, act="RELU"), const(net, (4,), "scale"))], FLOAT32))
    net = Net("full_constant", rng)
    x = net.input((1, 5, 5, 3))
    graphs.append(net.finish([binary(net, "MUL", conv(net, x), const(net, (1, 5, 5, 4), "scale"))], FLOAT32))
    net = Net("two", rng)
    x = net.input((1, 5, 5, 3))
    c = conv(net, x)
    graphs.append(net.finish([binary(net, "ADD", c, const(net, (4,))), binary(net, "MUL", c, c)], FLOAT32))
    net = Net("output", rng)
    x = net.input((1, 5, 5, 3))
    c = conv(net, x)
    graphs.append(net.finish([binary(net, "ADD", c, const(net, (4,))), c], FLOAT32))
    return merge(graphs)


def test_batch_norm_fold_declines_where_it_would_change_results():
    graph = blocked(33)
    before = len(calls(graph, UNFUSED))
    _, decisions = fused(graph)
    assert len(calls(graph)) == before == 9
    reasons = {tuple(d["ops"]): d["reason"] for d in decisions if d["pattern"] == "batchnorm"}
    assert all(d["decision"] == "declined" for d in decisions if d["pattern"] == "batchnorm")
    assert "activation" in reasons[(0, 1)]
    assert "per-channel" in reasons[(2, 3)]
    assert "2 consumers" in reasons[(4, 5)]
    assert "graph output" in reasons[(7, 8)]
    check_graph(graph, np.random.default_rng(34))


def test_int8_chains_are_not_batch_norm_candidates():
    rng = np.random.default_rng(35)
    net = Net("int8", rng)
    x = net.input((1, 5, 5, 3))
    graph = net.finish([binary(net, "MUL", conv(net, x), const(net, (4,), "scale"))], INT8)
    after, decisions = fused(graph)
    assert len(after.ops) == 2
    bn = [d for d in decisions if d["pattern"] == "batchnorm"]
    assert [d["decision"] for d in bn] == ["declined"] and "float32" in bn[0]["reason"]
