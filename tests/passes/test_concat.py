"""CONCATENATION elimination: producers write straight into slices of the concat output —
contiguous runs on the outermost axis, channel-strided slices for conv / pool / fc producers —
where it applies (fewer calls, smaller arena) and where it must not, each bit-exact with TFLM."""

from __future__ import annotations

import numpy as np

from microfuse import views
from microfuse.pipeline import Options
from microfuse.ir import Quant
from microfuse.testing.modelgen import Net
from microfuse.testing.stages import compile_model

from _fusion import fused
from _views import FLOAT32, INT8, concat, contiguous, conv, fire, inception, pool, share_concat_quant
from tests.harness import check_graph, dense_fast  # noqa: F401 (a fixture)

SIZE, BALANCED, SPEED = Options(optimize="size"), Options(optimize="balanced"), Options(optimize="speed")
OFF = Options(optimize="size", fuse=False)


def concat_decisions(graph, optimize="size"):
    return [d for d in fused(graph, optimize)[1] if d["pattern"] == "concat"]


def test_inception_block_writes_every_branch_into_its_channel_slice():
    graph = inception(np.random.default_rng(0))
    before, after = compile_model(graph, OFF), compile_model(graph, SIZE)
    assert len(before.calls) == 9 and "mf_concat_s8" in [c.kernel for c in before.calls]
    assert len(after.calls) == 8 and "mf_concat_s8" not in [c.kernel for c in after.calls]
    assert (before.plan.arena_bytes, after.plan.arena_bytes) == (2304, 1792)
    [d] = concat_decisions(graph)
    assert d["decision"] == "fused" and d["reason"].startswith("4 slices (4 strided)")
    strides = sorted(c.params.get("out_stride", c.params.get("k.out_stride", 0)) for c in after.calls)
    assert strides.count(18) == 4  # 5 + 6 + 3 + 4 channels: each branch writes every 18th byte
    check_graph(graph, np.random.default_rng(1), options=SIZE)


def test_fire_module_wins_with_the_fast_kernels_writing_strided_slices():
    graph = fire(np.random.default_rng(2))
    assert len(compile_model(graph, OFF).calls) == 5
    small = compile_model(graph, SIZE)
    assert len(small.calls) == 4 and small.plan.arena_bytes == 396  # from 576
    # the fast GEMM kernels take an out_stride, so the copy simply goes away; under balanced the
    # strided entry point's measured code (lower/code_bytes.json: +962 B) is weighed against the
    # 180 B of arena and the instructions it saves, and wins
    [d] = concat_decisions(graph, "balanced")
    assert d["decision"] == "fused" and "arena peak -180 B, flash +962 B" in d["reason"]
    [d] = concat_decisions(graph, "speed")
    assert d["decision"] == "fused" and d["reason"].startswith("2 slices (2 strided): wins for speed")
    fast = compile_model(graph, SPEED)
    assert len(fast.calls) == 4 and fast.plan.arena_bytes == 396
    assert [c.kernel for c in fast.calls] == ["mf_conv2d_s8_gemm", "mf_conv2d_s8_gemm_strided",
                                              "mf_conv2d_s8_gemm_strided", "mf_pool_avg_s8"]
    assert sorted(c.params.get("out_stride", 0) for c in fast.calls) == [0, 0, 8, 8]  # 4 + 4 channels
    check_graph(graph, np.random.default_rng(3), options=SIZE)
    check_graph(graph, np.random.default_rng(3), options=SPEED)


def test_float_fire_module_strided_float_kernels():
    graph = fire(np.random.default_rng(4), FLOAT32)
    assert len(compile_model(graph, OFF).calls) == 5
    assert len(compile_model(graph, SIZE).calls) == 4
    check_graph(graph, np.random.default_rng(5), options=SIZE)


def test_contiguous_slices_need_no_stride_any_producer(dense_fast):
    """(The heads are smaller than lower/fast.py DENSE_MACS_MIN: the fixture keeps them on the DSP
    kernel, whose fused LEAKY_RELU variant the balanced build takes.)"""
    graph = contiguous(np.random.default_rng(6))
    before, after = compile_model(graph, Options(fuse=False)), compile_model(graph, BALANCED)
    # both concats gone; the two FC heads read one input: horizontally fused into one call
    # that writes both slices
    assert len(before.calls) == 6 and len(after.calls) == 3
    assert "mf_fc_s8_x2" in [c.kernel for c in after.calls]
    assert after.plan.arena_bytes < before.plan.arena_bytes
    assert [d["reason"][:20] for d in concat_decisions(graph, "balanced")] == ["2 slices (0 strided)"] * 2
    assert any(c.kernel.startswith("mf_leaky_relu") or c.kernel.startswith("mf_lut") for c in after.calls)
    check_graph(graph, np.random.default_rng(7), options=BALANCED)


def _block(rng, extra_reader=False, middle_output=False, input_branch=False):
    net = Net("block", rng)
    x = net.input((1, 5, 5, 4))
    a, b = conv(net, x, 3, k=1), pool(net, x)
    branches = [x if input_branch else a, b]
    outs = [concat(net, branches)]
    if extra_reader:
        outs.append(conv(net, a, 2, k=1))
    if middle_output:
        outs.append(a)
    return share_concat_quant(net.finish(outs, INT8))


def test_declined_where_a_slice_would_break_another_reader_or_the_io():
    cases = {
        "also read by": _block(np.random.default_rng(8), extra_reader=True),
        "is a graph output": _block(np.random.default_rng(9), middle_output=True),
        "is a graph input": _block(np.random.default_rng(10), input_branch=True),
    }
    for why, graph in cases.items():
        [d] = concat_decisions(graph)
        assert d["decision"] == "declined" and why in d["reason"], (why, d)
        assert "mf_concat_s8" in [c.kernel for c in compile_model(graph, SIZE).calls]
        check_graph(graph, np.random.default_rng(11), samples=2, options=SIZE)


def test_declined_when_the_copy_is_not_plain():
    graph = _block(np.random.default_rng(12))
    graph.ops[0].outputs[0].quant = Quant((0.5,), (3,))  # the conv branch: its own quantization
    [d] = concat_decisions(graph)
    assert d["decision"] == "declined" and "quantized unlike the output" in d["reason"]


def test_slices_live_inside_the_concat_output():
    graph = inception(np.random.default_rng(0))
    compiled = compile_model(graph, SIZE)
    [join] = [op for op in compiled.graph.ops if op.kind == views.CONCAT_VIEW]
    base = compiled.plan.offsets[join.outputs[0]]
    assert [compiled.plan.offsets[s] - base for s in join.inputs] == [0, 5, 11, 14]
    assert all(views.strided(s) and s.stride == 18 for s in join.inputs)
