"""Cascades (passes/cascade.py) in real builds: conv chains, residual blocks and a chain ending in
a global average pool built as band loops, run by gcc and compared with TFLM; the objective decides
(size: every peak-lowering cascade, speed: none that costs instructions); --explain, report.json
and the generated C show them."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.ir import DType
from microfuse.ops.attrs import ActivationAttrs, ConvAttrs, DepthwiseAttrs, PoolAttrs
from microfuse.ops.cascade import CASCADE
from microfuse.passes.explain import format_decisions
from microfuse.pipeline import Options
from microfuse.testing.modelgen import Net, merge
from microfuse.testing.stages import compile_model

from conftest import NEEDS_CORPUS, model
from tests.harness import always_fuse, check_graph  # noqa: F401 (a fixture)

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
