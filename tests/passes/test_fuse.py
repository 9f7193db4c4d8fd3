"""Vertical fusion of unary activations and residual ADD/SUB/MUL into conv / depthwise / FC / pool:
where it applies (fewer kernel calls) and where it must not, each bit-exact with TFLM."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.pipeline import Options
from microfuse.ir import DType
from microfuse.testing.stages import compile_model
from microfuse.ops.attrs import (ActivationAttrs, ConvAttrs, DepthwiseAttrs, FullyConnectedAttrs, LeakyReluAttrs,
                                 PoolAttrs)
from microfuse.testing import modelgen
from microfuse.testing.modelgen import Net, merge

from _fusion import SIZE, calls, fused
from tests.harness import always_fuse, check_graph  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("always_fuse")

INT8, FLOAT32 = DType.INT8, DType.FLOAT32


def conv(net: Net, x, out_ch: int, act: str = "NONE", k: int = 3):
    c = x.shape[3]
    return net.op("CONV_2D", [x, net.weights((out_ch, k, k, c), k * k * c, 0), net.bias(out_ch)],
                  ConvAttrs("SAME", 1, 1, act), per_channel=True)


def dw(net: Net, x, act: str = "NONE"):
    c = x.shape[3]
    return net.op("DEPTHWISE_CONV_2D", [x, net.weights((1, 3, 3, c), 9, 3), net.bias(c)],
                  DepthwiseAttrs("SAME", 1, 1, 1, act), per_channel=True)


def fc(net: Net, x, units: int):
    return net.op("FULLY_CONNECTED", [x, net.weights((units, x.shape[-1]), x.shape[-1], 0), net.bias(units)],
                  FullyConnectedAttrs())


def unary(net: Net, kind: str, x):
    return net.op(kind, [x], LeakyReluAttrs(0.25) if kind == "LEAKY_RELU" else None)


def chains(seed: int, dtype: DType):
    """conv -> leaky relu -> logistic; depthwise -> hard swish; fc -> tanh; max pool -> relu6;
    conv -> relu -> avg pool (the pool is not an element-wise op: the relu joins the conv, then the
    pool joins it row by row, passes/pool_rows.py)."""
    rng = np.random.default_rng(seed)
    graphs = []
    for build in (
        lambda n, x: unary(n, "LOGISTIC", unary(n, "LEAKY_RELU", conv(n, x, 6))),
        lambda n, x: unary(n, "HARD_SWISH", dw(n, x)),
        lambda n, x: unary(n, "TANH", fc(n, x, 7)),
        lambda n, x: unary(n, "RELU6", n.op("MAX_POOL_2D", [x], PoolAttrs("VALID", 2, 2, 2, 2))),
        lambda n, x: n.op("AVERAGE_POOL_2D", [unary(n, "RELU", conv(n, x, 4))], PoolAttrs("SAME", 2, 2, 3, 3)),
    ):
        net = Net("chain", rng)
        x = net.input((1, 6, 6, 5))
        graphs.append(net.finish([build(net, x)], dtype))
    return merge(graphs)


@pytest.mark.parametrize("dtype", [INT8, FLOAT32])
def test_unary_chains_fuse_into_their_producer(dtype):
    graph = chains(1, dtype)
    assert len(calls(graph, Options(fuse=False, optimize="size"))) == 12
    after, decisions = fused(graph)
    kernels = calls(graph)
    assert len(kernels) == 5  # 12 -> 5: every activation joined its producer, the avg pool its conv
    suffix = "_lut" if dtype == INT8 else "_ep"
    assert sorted(k for k in kernels if k.endswith(suffix)) == sorted([
        f"mf_conv2d_{dtype_tag(dtype)}{suffix}", f"mf_dwconv2d_{dtype_tag(dtype)}{suffix}",
        f"mf_fc_{dtype_tag(dtype)}{suffix}", f"mf_pool_max_{dtype_tag(dtype)}{suffix}",
        f"mf_conv2d_{dtype_tag(dtype)}_pool{suffix}"])
    assert all(d["decision"] == "fused" for d in decisions)
    assert [d["ops"] for d in decisions] == [[0, 1], [0, 1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [9, 10, 11]]
    chain = after.ops[0]
    assert [step.kind for step in chain.fused] == ["unary"]  # two activations, one table / step list
    assert [op.kind for op in chain.fused[0].sources] == ["LEAKY_RELU", "LOGISTIC"]
    check_graph(graph, np.random.default_rng(2))


def dtype_tag(dtype: DType) -> str:
    return "s8" if dtype == INT8 else "f32"


def test_report_lists_sources_of_a_fused_call():
    graph = chains(3, INT8)
    compiled = compile_model(graph, SIZE)
    first = next(c for c in compiled.calls if c.sources[0].index == 0)
    assert first.label == "conv_2d+leaky_relu+logistic"
    assert [op.index for op in first.sources] == [0, 1, 2]
    assert {k: compiled.fusion[1][k] for k in ("pattern", "ops", "decision")} == {
        "pattern": "activation", "ops": [0, 1, 2], "decision": "fused"}


def residuals(seed: int, dtype: DType):
    """ADD(x, conv(conv(x))) + relu (a ResNet block); SUB with the residual first (x - conv);
    MUL(fc, y); depthwise -> relu -> ADD (a unary step before the binary one, then a tanh after)."""
    rng = np.random.default_rng(seed)
    graphs = [modelgen.residual(rng, (1, 6, 6, 4), dtype=dtype)]
    net = Net("sub", rng)
    x = net.input((1, 5, 5, 3))
    graphs.append(net.finish([net.op("SUB", [x, conv(net, x, 3)], ActivationAttrs("RELU6"))], dtype))
    net = Net("mul", rng)
    a, b = net.input((1, 12)), net.input((1, 6))
    graphs.append(net.finish([net.op("MUL", [fc(net, a, 6), b], ActivationAttrs("NONE"))], dtype))
    net = Net("dw_chain", rng)
    x = net.input((1, 5, 5, 4))
    y = net.op("ADD", [unary(net, "RELU", dw(net, x)), x], ActivationAttrs("NONE"))
    graphs.append(net.finish([unary(net, "TANH", y)], dtype))
    return merge(graphs)


@pytest.mark.parametrize("dtype", [INT8, FLOAT32])
def test_residual_ops_fuse_into_the_last_producer(dtype):
    graph = residuals(4, dtype)
    assert len(calls(graph, Options(fuse=False, optimize="size"))) == 11
    after, decisions = fused(graph)
    kernels = calls(graph)
    assert len(kernels) == 5  # 11 -> 5
    tag = dtype_tag(dtype)
    if dtype == INT8:
        assert sorted(kernels) == sorted([f"mf_conv2d_{tag}", f"mf_conv2d_{tag}_add", f"mf_conv2d_{tag}_rsub",
                                          f"mf_fc_{tag}_mul", f"mf_dwconv2d_{tag}_add"])
    else:
        assert sorted(kernels) == sorted([f"mf_conv2d_{tag}", f"mf_conv2d_{tag}_ep_res", f"mf_conv2d_{tag}_ep_res",
                                          f"mf_fc_{tag}_ep_res", f"mf_dwconv2d_{tag}_ep_res"])
    block = after.ops[1]
    assert [s.kind for s in block.fused] == ["add"] and block.inputs[3] is graph.inputs[0]
    assert [s.kind for s in after.ops[4].fused] == ["unary", "add", "unary"]
    check_graph(graph, np.random.default_rng(5))


def blocked(seed: int):
    """Fusions that must not happen: an intermediate that is a graph output; one with two
    consumers; a broadcast operand; a LOGISTIC whose output zero point is not TFLM's -128
    (no int8 table); conv -> ADD(conv output, conv output)."""
    rng = np.random.default_rng(seed)
    graphs = []
    net = Net("output_mid", rng)
    x = net.input((1, 4, 4, 3))
    mid = conv(net, x, 4)
    graphs.append(net.finish([unary(net, "RELU", mid), mid], INT8))
    net = Net("two_consumers", rng)
    x = net.input((1, 4, 4, 3))
    mid = conv(net, x, 4)
    graphs.append(net.finish([unary(net, "RELU", mid), unary(net, "TANH", mid)], INT8))
    net = Net("broadcast", rng)
    x, b = net.input((1, 4, 4, 3)), net.input((1, 1, 1, 4))
    graphs.append(net.finish([net.op("ADD", [conv(net, x, 4), b], ActivationAttrs("NONE"))], INT8))
    net = Net("self_add", rng)
    x = net.input((1, 4, 4, 3))
    mid = conv(net, x, 4)
    graphs.append(net.finish([net.op("ADD", [mid, mid], ActivationAttrs("NONE"))], INT8))
    return merge(graphs)


def test_fusion_declines_where_it_would_change_results():
    graph = blocked(6)
    before = len(calls(graph, Options(fuse=False, optimize="size")))
    _, decisions = fused(graph)
    assert len(calls(graph)) == before == 9
    reasons = {tuple(d["ops"]): d["reason"] for d in decisions}
    assert all(d["decision"] == "declined" for d in decisions)
    assert "graph output" in reasons[(0, 1)]
    assert "2 consumers" in reasons[(2, 3)] and "2 consumers" in reasons[(2, 4)]
    assert "differ" in reasons[(5, 6)]
    assert "both operands" in reasons[(7, 8)]
    check_graph(graph, np.random.default_rng(7))


def test_logistic_with_a_foreign_zero_point_has_no_table_and_stays_separate():
    rng = np.random.default_rng(8)
    net = Net("logistic", rng)
    x = net.input((1, 4, 4, 3))
    g = net.finish([unary(net, "LOGISTIC", conv(net, x, 4))], INT8)
    out = g.outputs[0]
    out.quant = type(out.quant)((out.quant.scale[0],), (-100,))
    after, decisions = fused(g)
    assert len(after.ops) == 2 and decisions[0]["decision"] == "declined"
    assert "no kernel" in decisions[0]["reason"] and "-128" in decisions[0]["reason"]


def test_passes_never_change_the_callers_graph():
    graph = residuals(9, INT8)
    kinds = [(op.kind, len(op.inputs), id(op.outputs[0])) for op in graph.ops]
    after, _ = fused(graph)
    assert len(after.ops) < len(graph.ops)
    assert [(op.kind, len(op.inputs), id(op.outputs[0])) for op in graph.ops] == kinds
    assert all(not op.fused for op in graph.ops)


def test_no_fuse_and_passes_switch_fusion_off():
    graph = residuals(10, INT8)
    assert len(compile_model(graph, Options(fuse=False, optimize="size")).calls) == 11
    assert len(compile_model(graph, Options(passes=("fold",), optimize="size")).calls) == 11
    assert compile_model(graph, Options(fuse=False, optimize="size")).fusion == []
