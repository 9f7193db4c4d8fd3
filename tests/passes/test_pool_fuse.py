"""A global AVERAGE_POOL_2D / MEAN fused into the conv or depthwise producing its input (the conv
output is never stored): where it applies, where it must not, what the cost model decides,
and the kernels' code sizes in the cost table. Each model bit-exact (float: 1e-5) with TFLM."""

from __future__ import annotations

import re

import numpy as np
import pytest

from microfuse.pipeline import Options
from microfuse.ir import DType
from microfuse.testing.stages import compile_model
from microfuse.ops.attrs import (ActivationAttrs, ConvAttrs, DepthwiseAttrs, FullyConnectedAttrs, PoolAttrs,
                                 ReducerAttrs, ReshapeAttrs)
from microfuse.passes import cost
from microfuse.passes.pool_fuse import is_global
from microfuse.testing.modelgen import Net, merge

from tests.harness import NEEDS_ARM, always_fuse, check_graph  # noqa: F401 (a fixture)
from _fusion import calls, check_cost_table, fused, measured_code_bytes
from tests import figures
from conftest import model

INT8, FLOAT32 = DType.INT8, DType.FLOAT32
UNFUSED = Options(fuse=False, optimize="size")


def conv(net: Net, x, out_ch=6, k=3, act="NONE", stride=1):
    c = x.shape[3]
    return net.op("CONV_2D", [x, net.weights((out_ch, k, k, c), k * k * c, 0), net.bias(out_ch)],
                  ConvAttrs("SAME", stride, stride, act), per_channel=True)


def mean(net: Net, x, axes=(1, 2), keep=False):
    return net.op("MEAN", [x, net.const(np.array(axes, np.int32), "axes")], ReducerAttrs(keep))


def avg(net: Net, x, filter_hw=None, padding="VALID"):
    fh, fw = filter_hw or x.shape[1:3]
    return net.op("AVERAGE_POOL_2D", [x], PoolAttrs(padding, fw, fh, fw, fh))


def pooled(seed: int, dtype: DType):
    """conv+RELU -> global average pool (7x5); depthwise, stride 2 -> MEAN (no keep_dims);
    conv -> residual ADD + RELU (fuses first) -> MEAN keep_dims: the IC ResNet-8 tail."""
    rng = np.random.default_rng(seed)
    graphs = []
    net = Net("conv_avg", rng)
    x = net.input((1, 7, 5, 3))
    graphs.append(net.finish([avg(net, conv(net, x, act="RELU"))], dtype))
    net = Net("dw_mean", rng)
    x = net.input((1, 7, 7, 4))
    d = net.op("DEPTHWISE_CONV_2D", [x, net.weights((1, 3, 3, 4), 9, 3), net.bias(4)],
               DepthwiseAttrs("SAME", 2, 2, 1, "RELU6"), per_channel=True)
    graphs.append(net.finish([mean(net, d)], dtype))
    net = Net("residual_mean", rng)
    x = net.input((1, 5, 5, 4))
    y = net.op("ADD", [conv(net, x, 4), x], ActivationAttrs("RELU"))
    graphs.append(net.finish([mean(net, y, keep=True)], dtype))
    return merge(graphs)


@pytest.mark.usefixtures("always_fuse")
@pytest.mark.parametrize("dtype", [INT8, FLOAT32])
def test_global_pool_fuses_into_its_conv(dtype):
    graph = pooled(41, dtype)
    assert len(calls(graph, UNFUSED)) == 7
    after, decisions = fused(graph)
    compiled = compile_model(graph, Options(optimize="size"))
    kernels = [c.kernel for c in compiled.calls]
    tag, res = ("s8", "_add") if dtype == INT8 else ("f32", "_ep_res")
    assert sorted(kernels) == sorted([f"mf_conv2d_{tag}_gap", f"mf_dwconv2d_{tag}_gap",
                                      f"mf_conv2d_{tag}_gap{res}"])  # 7 -> 3
    assert [d["ops"] for d in decisions if d["pattern"] == "global_pool"] == [[0, 1], [2, 3], [4, 5, 6]]
    assert all(c.scratch == 4 * c.outputs[0].shape[-1] for c in compiled.calls)
    conv_outputs = [op.outputs[0] for op in graph.ops if op.kind in ("CONV_2D", "DEPTHWISE_CONV_2D")]
    assert not any(t in compiled.plan.offsets for t in conv_outputs)  # never stored
    plain_macs = [c.macs for c in compile_model(graph, UNFUSED).calls if c.macs]
    assert sorted(c.macs for c in compiled.calls) == sorted(plain_macs)  # the conv's, counted once
    check_graph(graph, np.random.default_rng(42), samples=4)


def blocked(seed: int):
    """conv output read twice (pool and a graph output); no candidates: a 2x2 pool (not
    global), a MEAN over the height only, a max pool."""
    rng = np.random.default_rng(seed)
    graphs = []
    net = Net("output", rng)
    x = net.input((1, 4, 4, 3))
    c = conv(net, x)
    graphs.append(net.finish([avg(net, c), c], INT8))
    net = Net("local", rng)
    x = net.input((1, 4, 4, 3))
    graphs.append(net.finish([avg(net, conv(net, x), (2, 2))], INT8))
    net = Net("height", rng)
    x = net.input((1, 4, 4, 3))
    graphs.append(net.finish([mean(net, conv(net, x), (1,), keep=True)], INT8))
    net = Net("max", rng)
    x = net.input((1, 4, 4, 3))
    graphs.append(net.finish([net.op("MAX_POOL_2D", [conv(net, x)], PoolAttrs("VALID", 4, 4, 4, 4))], INT8))
    return merge(graphs)


@pytest.mark.usefixtures("always_fuse")
def test_global_pool_fusion_declines_where_it_must():
    graph = blocked(43)
    before = len(calls(graph, UNFUSED))
    _, decisions = fused(graph)
    assert before == 8 and len(calls(graph)) == 6  # the local and the max pool join row by row (pool_rows)
    reasons = {tuple(d["ops"]): d["reason"] for d in decisions if d["pattern"] == "global_pool"}
    assert all(d["decision"] == "declined" for d in decisions if d["pattern"] == "global_pool")
    assert "graph output" in reasons[(0, 1)]
    assert set(reasons) == {(0, 1)}  # the others are no candidates:
    assert "whole image" in is_global(graph.ops[3]) and "height and width" in is_global(graph.ops[5])
    check_graph(graph, np.random.default_rng(44))


def peak_at_the_end(seed: int):
    """A small input widened to 32 channels right before the pool: the conv output is the
    arena peak, so not storing it pays under every objective that weighs memory."""
    rng = np.random.default_rng(seed)
    net = Net("tail", rng)
    x = net.input((1, 8, 8, 2))
    y = avg(net, conv(net, x, 32, act="RELU"))
    y = net.op("RESHAPE", [y, net.const(np.array([1, 32], np.int32), "shape")], ReshapeAttrs((1, 32)))
    y = net.op("FULLY_CONNECTED", [y, net.weights((3, 32), 32, 0), net.bias(3)], FullyConnectedAttrs())
    return net.finish([y], INT8)


def test_cost_model_fuses_when_the_conv_output_is_the_peak():
    graph = peak_at_the_end(45)
    plain = compile_model(graph, UNFUSED)
    ours = compile_model(graph, Options(optimize="size"))
    assert len(plain.calls) == 3 and len(ours.calls) == 2
    decision, = [d for d in ours.fusion if d["pattern"] == "global_pool"]
    assert decision["decision"] == "fused" and "wins for size" in decision["reason"]
    assert plain.plan.arena_bytes == 2_080  # 2,048 B of them the conv output
    figures.arena("conv + global pool fused", ours.plan.arena_bytes, 288)  # today's figure
    check_graph(graph, np.random.default_rng(46), options=Options(optimize="size"))


def test_corpus_tails_are_weighed_under_every_objective():
    """KWS and VWW end with conv -> global average pool: a candidate with a costed reason each
    time (their arena peak is earlier, so the verdict depends on the objective)."""
    for name in ("mlperf_kws_dscnn_int8", "mlperf_vww_mobilenetv1_96_int8"):
        for objective in cost.OBJECTIVES:
            found = [d for d in compile_model(str(model(name)), Options(optimize=objective)).fusion
                     if d["pattern"] == "global_pool"]
            assert len(found) == 1 and re.search(r"(wins|loses) for " + objective, found[0]["reason"])


@pytest.mark.qemu
@NEEDS_ARM
def test_gap_kernels_code_bytes_are_in_the_cost_table(tmp_path):
    measured = measured_code_bytes(tmp_path, ["mf_conv2d_s8_gap", "mf_conv2d_f32_gap"])
    assert len(measured) == 18
    check_cost_table(measured)