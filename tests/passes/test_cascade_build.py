"""Cascades (passes/cascade.py) in real builds: conv chains, residual blocks and a chain ending in
a global average pool built as band loops, run by gcc and compared with TFLM; the objective decides
(size: every peak-lowering cascade, speed: none that costs instructions); the band shape rule
(SHAPES: larger bands only in room under the model's peak), on the host and under QEMU;
--explain, report.json and the generated C show them."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.ir import DType
from microfuse.ops.attrs import ActivationAttrs, ConvAttrs, DepthwiseAttrs, PoolAttrs
from microfuse.ops.cascade import CASCADE, Shape
from microfuse.passes import cascade as cascade_pass
from microfuse.passes.explain import format_decisions
from microfuse.pipeline import Options
from microfuse.testing import inputs
from microfuse.testing.boards import run_sequence
from microfuse.testing.modelgen import Net, merge
from microfuse.testing.stages import compile_model

from conftest import NEEDS_CORPUS, model
from tests.harness import always_fuse, check_graph, on_qemu, reference  # noqa: F401 (a fixture)

INT8, FLOAT32 = DType.INT8, DType.FLOAT32
SIZE = Options(optimize="size")


def conv(net: Net, x, out_ch=4, k=3, act="RELU", stride=1, padding="SAME"):
    c = x.shape[3]
    return net.op("CONV_2D", [x, net.weights((out_ch, k, k, c), k * k * c, 0), net.bias(out_ch)],
                  ConvAttrs(padding, stride, stride, act), per_channel=True)


def dw(net: Net, x, stride=1, act="RELU6"):
    c = x.shape[3]
    return net.op("DEPTHWISE_CONV_2D", [x, net.weights((1, 3, 3, c), 9, 3), net.bias(c)],
                  DepthwiseAttrs("SAME", stride, stride, 1, act), per_channel=True)


def chains(seed: int, dtype: DType, parts: tuple[str, ...] = ("mobilenet", "resnet", "dscnn")):
    """conv 3x3 -> depthwise 3x3/2 -> conv 1x1 (a MobileNet block); a ResNet block (conv, conv +
    skip ADD) with a strided block after it (its 1x1 shortcut conv carries the add); int8 only: a
    DS-CNN-like chain ending in a global average pool."""
    rng = np.random.default_rng(seed)
    graphs = []
    if "mobilenet" in parts:
        net = Net("mobilenet", rng)
        x = net.input((1, 20, 6, 1))
        graphs.append(net.finish([conv(net, dw(net, conv(net, x, 16, 3), stride=2), 4, 1)], dtype))
    if "resnet" in parts:
        net = Net("resnet", rng)
        x = conv(net, net.input((1, 12, 6, 2)), 4)
        y = net.op("ADD", [conv(net, conv(net, x, 4), 4, act="NONE"), x], ActivationAttrs("RELU"))
        main = conv(net, conv(net, y, 8, stride=2), 8, act="NONE")
        z = net.op("ADD", [conv(net, y, 8, 1, "NONE", 2), main], ActivationAttrs("RELU"))
        graphs.append(net.finish([z], dtype))
    if "dscnn" in parts and dtype == INT8:
        net = Net("dscnn", rng)
        x = conv(net, dw(net, conv(net, net.input((1, 15, 4, 1)), 8, 3, stride=2)), 8, 1)
        graphs.append(net.finish([net.op("AVERAGE_POOL_2D", [x], PoolAttrs("VALID", 1, 1, 2, 8))], dtype))
    return merge(graphs)


@pytest.mark.usefixtures("always_fuse")  # the residual ADDs fuse into their convs, as in real models
@pytest.mark.parametrize("dtype", [INT8, FLOAT32])
def test_chains_and_residual_blocks_run_as_cascades_bit_exact(dtype, tmp_path):
    graph = chains(61, dtype)
    compiled = compile_model(graph, SIZE)
    cascades = [c for c in compiled.calls if c.op.kind == CASCADE]
    assert len(cascades) >= 2, [d for d in compiled.fusion if d["pattern"] == "cascade"]
    assert compiled.plan.arena_bytes < compile_model(graph, Options(optimize="size", fuse=False)).plan.arena_bytes
    check_graph(graph, np.random.default_rng(62), options=SIZE)


@pytest.mark.parametrize("part", ["mobilenet", "dscnn"])
def test_a_chain_and_one_ending_in_a_global_pool_run_as_cascades_bit_exact(part):
    graph = chains(64, INT8, (part,))
    compiled = compile_model(graph, SIZE)
    assert [c.op.kind for c in compiled.calls] == [CASCADE]
    check_graph(graph, np.random.default_rng(65), options=SIZE)


def test_the_generated_code_shows_the_band_loop(tmp_path):
    from microfuse.pipeline import build
    build(chains(63, INT8, ("dscnn",)), tmp_path / "out", Options(name="m", optimize="size"))
    text = (tmp_path / "out" / "m.c").read_text()
    assert "for (int i = 0; i <" in text and "the steady state" in text and "mf_ring_keep(" in text
    assert "cascade of 4 ops" in text and "mf_rowsum_s8(" in text


@NEEDS_CORPUS
def test_objectives_decide_the_cascades_of_ic_resnet8():
    path = model("mlperf_ic_resnet8_int8")
    by = {o: compile_model(path, Options(optimize=o)) for o in ("size", "balanced", "speed")}
    kinds = {o: [c.op.kind for c in by[o].calls] for o in by}
    assert CASCADE in kinds["size"] and CASCADE in kinds["balanced"] and CASCADE not in kinds["speed"]
    assert by["balanced"].plan.arena_bytes < by["speed"].plan.arena_bytes
    text = format_decisions(by["balanced"].fusion)
    assert "fused    cascade" in text and "rings" in text and "of whole intermediates" in text
    assert "over the speed budget" in format_decisions(by["speed"].fusion)


@NEEDS_CORPUS
def test_report_lists_each_cascade_and_its_rings(tmp_path):
    from microfuse.pipeline import build
    import json
    build(model("mlperf_kws_dscnn_int8"), tmp_path / "kws", Options(name="kws"))
    report = json.loads((tmp_path / "kws" / "report.json").read_text())
    (c,) = report["cascades"]
    assert c["ops"][-1] == "average_pool_2d" and c["saved_bytes"] > 0
    assert all(r["rows"] < r["of_rows"] for r in c["rings"])
    rings = [e for e in report["timeline"] if e["kind"] == "ring"]
    assert len(rings) == len(c["rings"])
    assert 'class="buf tl-ring"' in (tmp_path / "kws" / "report.html").read_text()


def vww_like(seed: int):
    """VWW's first layers at a quarter of its width: a 3x3 stride-2 conv (the model's peak: its
    input and output), then depthwise, pointwise 8 -> 16, depthwise stride 2 (a cascade, with room
    under the peak for bands of several rows) and a pointwise conv."""
    net = Net("vwwlike", np.random.default_rng(seed))
    x = conv(net, net.input((1, 96, 24, 3)), 8, 3, stride=2)
    x = conv(net, dw(net, conv(net, dw(net, x), 16, 1), stride=2), 32, 1)
    return net.finish([x], INT8)


def shapes(compiled) -> list[Shape]:
    return [c.op.attrs.shape for c in compiled.calls if c.op.kind == CASCADE]


def test_a_cascade_takes_larger_bands_only_in_room_under_the_peak(monkeypatch):
    """SHAPES: VWW's chain takes bands of several rows, for fewer instructions and the same arena
    as row by row; a chain whose cascade is its own peak keeps one row a step. Bit-exact."""
    graph = vww_like(70)
    compiled = compile_model(graph, Options())
    assert shapes(compiled) == [Shape(5, 0)]
    assert "bands of 5 output row(s) a step" in format_decisions(compiled.fusion)
    monkeypatch.setattr(cascade_pass, "SHAPES", (Shape(1, 1),))
    rows = compile_model(graph, Options())
    assert shapes(rows) == [Shape(1, 1)]
    assert compiled.plan.arena_bytes == rows.plan.arena_bytes
    extra = {c: next(d for d in c.fusion if d["pattern"] == "cascade")["reason"] for c in (compiled, rows)}
    assert extra[compiled] != extra[rows]
    monkeypatch.undo()
    check_graph(graph, np.random.default_rng(71), options=Options())
    for part in ("mobilenet", "dscnn"):  # their cascades are the peak: one row a step
        assert shapes(compile_model(chains(64, INT8, (part,)), SIZE)) == [Shape(1, 1)]


@on_qemu
@pytest.mark.parametrize("board", ["qemu-mps2-an386", "qemu-mps2-an500"])
def test_bands_of_several_rows_bit_exact_on_the_dsp_cores(board):
    """The same chain's band loop on the M4 and M7 kernels (quads, pairs, pair runs over several
    rows a call) against TFLM."""
    graph = vww_like(72)
    rng = np.random.default_rng(73)
    feeds = [inputs.sample(graph.inputs, rng) for _ in range(2)]
    got = run_sequence(graph, board, feeds)
    for s, (ours, want) in enumerate(zip(got, reference(graph, feeds))):
        np.testing.assert_array_equal(ours[0], want[0], err_msg=f"sample {s}")


@NEEDS_CORPUS
def test_the_mlperf_cascades_band_shapes():
    """VWW's 48x48 cascade runs 5 output rows a step (passes/cascade.py SHAPES: its pointwise
    conv's input ring inside its output ring, ops/cascade.py _nest); KWS's and IC's, at their
    models' peaks, one."""
    want = {"mlperf_vww_mobilenetv1_96_int8": [Shape(5, 0)], "mlperf_kws_dscnn_int8": [Shape(1, 1)],
            "mlperf_ic_resnet8_int8": [Shape(1, 1)]}
    for name, shape in want.items():
        assert shapes(compile_model(model(name), Options())) == shape, name


def test_a_pointwise_band_over_its_own_input_needs_the_pixel_access_order(monkeypatch):
    """VWW's chain: its pointwise conv's input ring lies inside its output ring (ops/cascade.py
    _nest), so its band kernel must declare the pixel window access order; the lowering refuses
    one that does not (here: every kernel, by renaming the clause it checks), and the pass then
    finds no kernel for that cascade (it takes a shorter one, without a ring inside another)."""
    from microfuse.lower import cascade as lower_cascade
    from microfuse.ops import cascade as casc
    assert shapes(compile_model(vww_like(74), Options())) == [Shape(5, 0)]
    op = casc.make(vww_like(74).ops[1:4], Shape(5, 0))  # depthwise, pointwise, depthwise
    assert lower_cascade._shares_bytes(casc.program(op), casc.members(op)[1])
    monkeypatch.setattr(lower_cascade, "WINDOW", "no such order")
    compiled = compile_model(vww_like(74), Options())
    assert "no kernel" in format_decisions(compiled.fusion)
    for call in compiled.calls:
        if call.op.kind == CASCADE:
            assert not any(lower_cascade._shares_bytes(call.program, m) for m in casc.members(call.op))
