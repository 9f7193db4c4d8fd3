"""Horizontal fusion: sibling convs / fully-connected layers reading one input with one geometry
become one call with an output per sibling; where it must not; the cost model's say; and
combined with concat elimination (a sibling writing straight into a concat slice)."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.pipeline import Options
from microfuse.ops.attrs import LeakyReluAttrs
from microfuse.testing.modelgen import Net
from microfuse.testing.stages import compile_model

from _fusion import fused
from tests.harness import always_fuse, check_graph  # noqa: F401 (a fixture)
from _views import FLOAT32, INT8, conv, fc, inception

SIZE, BALANCED, OFF = Options(optimize="size"), Options(optimize="balanced"), Options(optimize="size", fuse=False)


def heads(rng, dtype=INT8):
    """Two FC heads on one vector; on one map two 3x3 convs (one RELU6), a 1x1 conv (other
    geometry), and a 3x3 conv followed by a LEAKY_RELU (an epilogue after vertical fusion)."""
    net = Net("heads", rng)
    x, y = net.input((1, 16)), net.input((1, 5, 5, 3))
    outs = [fc(net, x, 3, "RELU"), fc(net, x, 6), conv(net, y, 4), conv(net, y, 2, act="RELU6"),
            conv(net, y, 3, k=1), net.op("LEAKY_RELU", [conv(net, y, 2)], LeakyReluAttrs(0.3))]
    return net.finish(outs, dtype)


def horizontal(graph, optimize="size"):
    return [d for d in fused(graph, optimize)[1] if d["pattern"] == "horizontal"]


@pytest.mark.usefixtures("always_fuse")
def test_siblings_become_one_call_per_input():
    graph = heads(np.random.default_rng(0))
    assert len(compile_model(graph, OFF).calls) == 7
    kernels = [c.kernel for c in compile_model(graph, SIZE).calls]
    assert len(kernels) == 4  # 2 FC -> 1, 2 of the 3x3 convs -> 1; the 1x1 and the fused conv alone
    assert sorted(k for k in kernels if "_x" in k) == ["mf_conv2d_s8_x2", "mf_fc_s8_x2"]
    decisions = horizontal(graph)
    assert [(d["ops"], d["decision"]) for d in decisions if d["decision"] == "fused"] == [([0, 1], "fused"),
                                                                                      ([2, 3], "fused")]
    reasons = [d["reason"] for d in decisions if d["decision"] == "declined"]
    assert len(reasons) == 1 and "has an epilogue" in reasons[0]  # the 1x1 conv is no candidate
    check_graph(graph, np.random.default_rng(1), options=SIZE)
    check_graph(graph, np.random.default_rng(1), options=BALANCED)


@pytest.mark.usefixtures("always_fuse")
def test_float_siblings_stay_apart():
    graph = heads(np.random.default_rng(2), FLOAT32)
    assert len(compile_model(graph, SIZE).calls) == len(compile_model(graph, OFF).calls) - 1  # the relu only
    assert all(d["decision"] == "declined" for d in horizontal(graph))


def test_cost_model_decides():
    """Siblings save a call and a re-read of the input, and cost the N-output kernel's code:
    at size that loses; the decision and its reason are logged."""
    graph = heads(np.random.default_rng(3))
    fc_pair = next(d for d in horizontal(graph, "size") if d["ops"] == [0, 1])
    assert fc_pair["decision"] == "declined" and fc_pair["reason"].startswith("loses for size")
    assert "instructions -" in fc_pair["reason"] and "flash +" in fc_pair["reason"]
    speed = next(d for d in horizontal(graph, "speed") if d["ops"] == [0, 1])
    assert speed["reason"].split(":")[0] in ("wins for speed", "loses for speed")


@pytest.mark.usefixtures("always_fuse")
def test_sibling_writes_into_a_concat_slice():
    graph = inception(np.random.default_rng(4))
    compiled = compile_model(graph, SIZE)
    kernels = [c.kernel for c in compiled.calls]
    # 9 -> 6: the siblings, the concat (slices), and the average-pool branch's conv + pool, which
    # writes its strided concat slice row by row (pool_rows)
    assert len(compile_model(graph, OFF).calls) == 9 and len(kernels) == 6
    [multi] = [c for c in compiled.calls if c.kernel == "mf_conv2d_s8_x2"]
    assert multi.params["o.out_stride"] == "{18, 0}"  # the first sibling writes a concat slice
    check_graph(graph, np.random.default_rng(5), options=SIZE)
