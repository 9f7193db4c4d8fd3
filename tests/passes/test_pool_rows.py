"""A MAX_POOL_2D / AVERAGE_POOL_2D fused row by row into the conv or depthwise producing its input
(passes/pool_rows.py): the conv output is never stored whole, only a ring of rows in scratch.
Where it applies, where it must not, what the cost model decides, the kernels' code sizes;
each model bit-exact (float: 1e-5) with TFLM on the unfused model."""

from __future__ import annotations

from _fusion import NO_CASCADE

import re
from pathlib import Path

import numpy as np
import pytest

from microfuse.pipeline import Options
from microfuse.ir import DType, Quant
from microfuse.ops.attrs import ActivationAttrs, ConvAttrs, DepthwiseAttrs, PoolAttrs
from microfuse.passes import cost
from microfuse.testing.modelgen import Net, merge
from microfuse.testing.stages import compile_model

from tests.harness import NEEDS_ARM, always_fuse, check_graph  # noqa: F401 (a fixture)
from _fusion import calls, check_cost_table, fused, measured_code_bytes
from tests import figures

INT8, FLOAT32 = DType.INT8, DType.FLOAT32
UNFUSED = Options(fuse=False, optimize="size")
SIZE = Options(optimize="size")


def conv(net: Net, x, out_ch=4, k=3, act="NONE", stride=1):
    c = x.shape[3]
    return net.op("CONV_2D", [x, net.weights((out_ch, k, k, c), k * k * c, 0), net.bias(out_ch)],
                  ConvAttrs("SAME", stride, stride, act), per_channel=True)


def pool(net: Net, x, kind="MAX_POOL_2D", filter_hw=2, stride=2, padding="VALID", act="NONE"):
    return net.op(kind, [x], PoolAttrs(padding, stride, stride, filter_hw, filter_hw, act))


def candidates(seed: int, dtype: DType):
    """conv+RELU -> 2x2/2 max (stride = window, VALID); depthwise -> 3x3/2 average SAME (overlapping
    windows, clipped borders); conv + residual ADD (fused first) -> 3x3/1 max SAME; conv on 7 rows
    -> 2x2/3 average VALID (rows no window reads are never computed)."""
    rng = np.random.default_rng(seed)
    graphs = []
    net = Net("conv_max", rng)
    x = net.input((1, 8, 6, 3))
    graphs.append(net.finish([pool(net, conv(net, x, act="RELU"))], dtype))
    net = Net("dw_avg", rng)
    x = net.input((1, 7, 7, 4))
    d = net.op("DEPTHWISE_CONV_2D", [x, net.weights((1, 3, 3, 4), 9, 3), net.bias(4)],
               DepthwiseAttrs("SAME", 1, 1, 1, "RELU6"), per_channel=True)
    graphs.append(net.finish([pool(net, d, "AVERAGE_POOL_2D", 3, 2, "SAME")], dtype))
    net = Net("residual_max", rng)
    x = net.input((1, 5, 5, 4))
    y = net.op("ADD", [conv(net, x, 4), x], ActivationAttrs("NONE"))
    graphs.append(net.finish([pool(net, y, "MAX_POOL_2D", 3, 1, "SAME")], dtype))
    net = Net("skip_rows", rng)
    x = net.input((1, 7, 8, 2))
    graphs.append(net.finish([pool(net, conv(net, x, 3), "AVERAGE_POOL_2D", 2, 3, "VALID")], dtype))
    return merge(graphs)


@pytest.mark.usefixtures("always_fuse")
@pytest.mark.parametrize("dtype", [INT8, FLOAT32])
def test_pool_fuses_row_by_row_into_its_conv(dtype):
    graph = candidates(51, dtype)
    assert len(calls(graph, UNFUSED)) == 9
    _, decisions = fused(graph)
    compiled = compile_model(graph, SIZE)
    tag, res = ("s8", "_add") if dtype == INT8 else ("f32", "_ep_res")
    kernels = [c.kernel for c in compiled.calls]
    assert sorted(kernels) == sorted([f"mf_conv2d_{tag}_pool", f"mf_dwconv2d_{tag}_pool",
                                      f"mf_conv2d_{tag}_pool{res}", f"mf_conv2d_{tag}_pool"])  # 9 -> 4
    assert [d["ops"] for d in decisions if d["pattern"] == "pool_rows"] == [[0, 1], [2, 3], [4, 5, 6], [7, 8]]
    # the ring: filter_h conv rows (of the conv's width and channels)
    rows = {"conv_max": 2 * 6 * 4, "dw_avg": 3 * 7 * 4, "residual_max": 3 * 5 * 4, "skip_rows": 2 * 8 * 3}
    assert sorted(c.scratch for c in compiled.calls) == sorted(r * dtype.size for r in rows.values())
    conv_outputs = [op.outputs[0] for op in graph.ops if op.kind in ("CONV_2D", "DEPTHWISE_CONV_2D")]
    assert not any(t in compiled.plan.offsets for t in conv_outputs)  # never stored whole
    plain_macs = [c.macs for c in compile_model(graph, UNFUSED).calls if c.macs]
    assert sorted(c.macs for c in compiled.calls) == sorted(plain_macs)
    check_graph(graph, np.random.default_rng(52), samples=4)


def blocked(seed: int):
    """Conv output read twice (max pool and an ADD); a graph output in the middle; a global
    average pool (pool_fuse's)."""
    rng = np.random.default_rng(seed)
    graphs = []
    net = Net("two_readers", rng)
    x = net.input((1, 4, 4, 3))
    c = conv(net, x, 3)
    graphs.append(net.finish([pool(net, c), net.op("ADD", [c, x], ActivationAttrs("NONE"))], INT8))
    net = Net("output", rng)
    x = net.input((1, 4, 4, 3))
    c = conv(net, x)
    graphs.append(net.finish([pool(net, c, "AVERAGE_POOL_2D"), c], INT8))
    net = Net("global", rng)
    x = net.input((1, 4, 4, 3))
    graphs.append(net.finish([pool(net, conv(net, x), "AVERAGE_POOL_2D", 4, 4)], INT8))
    return merge(graphs)


@pytest.mark.usefixtures("always_fuse")
def test_pool_rows_declines_where_it_must():
    graph = blocked(53)
    before = len(calls(graph, UNFUSED))
    _, decisions = fused(graph)
    assert before == 7 and len(calls(graph)) == 6  # only the global pool fuses (pool_fuse)
    reasons = {tuple(d["ops"]): d["reason"] for d in decisions if d["pattern"] == "pool_rows"}
    assert all(d["decision"] == "declined" for d in decisions if d["pattern"] == "pool_rows")
    assert "2 consumers" in reasons[(0, 1)]
    assert "graph output" in reasons[(3, 4)]
    assert set(reasons) == {(0, 1), (3, 4)}  # the global average is pool_fuse's
    assert [d["decision"] for d in decisions if d["pattern"] == "global_pool"] == ["fused"]
    check_graph(graph, np.random.default_rng(54))


@pytest.mark.usefixtures("always_fuse")
def test_pool_rows_declines_mismatched_quantization():
    """A pool whose output is quantized unlike its input (TFLite forbids it, so only the pass
    sees it: the pool's int8 arithmetic would no longer be a copy of the conv's values)."""
    net = Net("requant", np.random.default_rng(57))
    x = net.input((1, 4, 4, 3))
    graph = net.finish([pool(net, conv(net, x))], INT8)
    out = graph.ops[-1].outputs[0]
    out.quant = Quant(tuple(2 * s for s in out.quant.scale), out.quant.zero_point, out.quant.axis)
    after, decisions = fused(graph)
    assert [op.kind for op in after.ops] == ["CONV_2D", "MAX_POOL_2D"] and not after.ops[0].fused
    decision, = [d for d in decisions if d["pattern"] == "pool_rows"]
    assert decision["decision"] == "declined" and "quantization differ" in decision["reason"]


def peak_in_the_middle(seed: int):
    """A 2-channel image widened to 32 channels by a 1x1 conv and max-pooled at once: the conv
    output (8 KiB) is the arena peak; the ring holds 2 of its 16 rows."""
    rng = np.random.default_rng(seed)
    net = Net("stem", rng)
    x = net.input((1, 16, 16, 2))
    y = pool(net, conv(net, x, 32, k=1, act="RELU"))
    y = conv(net, y, 4, stride=2)
    return net.finish([y], INT8)


@pytest.mark.parametrize("optimize, fuses", [("size", True), ("balanced", True), ("speed", False)])
def test_cost_model_fuses_when_the_arena_drops_enough(optimize, fuses):
    """The arena drops by ~4.6 KB; the reference conv costs more instructions than the fast one:
    size and balanced take the trade, speed does not."""
    graph = peak_in_the_middle(55)
    plain = compile_model(graph, Options(fuse=False, optimize=optimize))
    ours = compile_model(graph, Options(optimize=optimize))
    decision, = [d for d in ours.fusion if d["pattern"] == "pool_rows"]
    assert re.search(("wins" if fuses else "loses") + f" for {optimize}: .*arena peak -4,", decision["reason"])
    assert len(plain.calls) == 3 and len(ours.calls) == (2 if fuses else 3)
    if fuses:
        assert ours.calls[0].kernel == "mf_conv2d_s8_pool"
        assert ours.calls[0].scratch == 2 * 16 * 32
        assert plain.plan.arena_bytes >= 8_192  # the conv output
        figures.arena(f"conv + pool rows fused ({optimize})", ours.plan.arena_bytes, 3_584)  # today's figure
    else:
        assert ours.plan.arena_bytes == plain.plan.arena_bytes
    check_graph(graph, np.random.default_rng(56), options=Options(optimize=optimize))


def test_tiny_cnn_max_pool_is_weighed():
    """examples/tiny_cnn_int8.tflite: conv -> max pool is a candidate with a costed reason; its
    arena peak is elsewhere, so no objective gains from it (the arena stays as it is)."""
    path = Path(__file__).resolve().parents[2] / "examples" / "tiny_cnn_int8.tflite"
    for objective in cost.OBJECTIVES:
        compiled = compile_model(str(path), Options(optimize=objective, passes=NO_CASCADE))
        found = [d for d in compiled.fusion if d["pattern"] == "pool_rows"]
        assert len(found) == 1 and re.search(r"loses for " + objective + r".*arena peak \+0 B", found[0]["reason"])
        assert compiled.plan.arena_bytes == compile_model(str(path), Options(fuse=False, optimize=objective)).plan.arena_bytes


@pytest.mark.qemu
@NEEDS_ARM
def test_pool_rows_kernels_code_bytes_are_in_the_cost_table(tmp_path):
    measured = measured_code_bytes(tmp_path, ["mf_conv2d_s8_pool", "mf_conv2d_f32_pool"])
    assert len(measured) == 18
    check_cost_table(measured)