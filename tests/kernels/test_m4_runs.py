"""The DSP depthwise kernel's runs of interior pixels (mf_dw_pixels) and the fully-connected kernel
of whole 8-value chunks (mf_fc_s8_dsp8, mf_fc_row) vs TFLite Micro, seeded, on the host (the portable C path,
sanitizers on) and under QEMU mps2-an386 (the assembly): every edge of a run (padding on either
side, strides, dilations, rows without interior pixels, a window other than 3x3, channel counts
from 4 to 64 and the ones the fast kernel refuses) and every entry into the four-chunk loop,
each call also over its input at the planner's tightest forward and backward shifts."""

from __future__ import annotations

import numpy as np

from microfuse.ir import DType, Graph, Tensor
from microfuse.ops.attrs import DepthwiseAttrs, FullyConnectedAttrs
from microfuse.testing.modelgen import merge
from microfuse.testing.stages import lowered
from tests.harness import dense_fast, on_qemu  # noqa: F401 (a fixture)
from tests.kernels import placements
from tests.kernels.cases import act_quant, int8_weights, int32_bias, out_quant, single_op, weight_quant

SEED = 17

# (batches, h, w, channels, k_h, k_w, stride, dilation, padding, activation, depth multiplier)
DW = [
    (1, 25, 5, 64, 3, 3, 1, 1, "SAME", "NONE", 1),    # KWS: 3 interior columns of 5
    (1, 12, 12, 8, 3, 3, 1, 1, "SAME", "NONE", 1),    # VWW's first: 2 groups a pixel
    (1, 13, 11, 16, 3, 3, 2, 1, "SAME", "NONE", 1),   # stride 2, odd sizes
    (2, 9, 10, 12, 3, 3, 2, 1, "VALID", "NONE", 1),   # every pixel interior, two images
    (1, 7, 9, 4, 3, 3, 1, 2, "SAME", "NONE", 1),      # dilated: short runs
    (1, 6, 2, 8, 3, 3, 1, 1, "SAME", "NONE", 1),      # no interior column
    (1, 8, 14, 20, 3, 5, 1, 1, "SAME", "NONE", 1),    # 15 taps: the tap loop, not the unrolled 9
    (1, 6, 7, 32, 5, 5, 1, 1, "VALID", "NONE", 1),
    (1, 10, 10, 24, 3, 3, 1, 1, "SAME", "RELU6", 1),  # clamped: through the stage, one pixel a call
    (1, 5, 6, 6, 3, 3, 1, 1, "SAME", "NONE", 1),      # channels % 4: the reference kernel
    (1, 5, 6, 4, 3, 3, 1, 1, "SAME", "NONE", 2),      # depth multiplier 2: the reference kernel
]

# (rows, depth, units): whole chunks and >= 1024 MACs run mf_fc_s8_dsp8, n8 = depth / 8 entering
# the four-chunk loop at each of its chunks; the last two keep mf_fc_s8_dsp (a tail; too small)
FC = [(1, 8, 128), (1, 16, 64), (1, 24, 44), (2, 32, 32), (1, 40, 28), (3, 128, 128), (1, 640, 8),
      (1, 20, 8), (1, 64, 12)]


def dw_graph(rng, case) -> Graph:
    n, h, w, c, kh, kw, s, d, padding, act, mult = case
    out_c = c * mult
    attrs = DepthwiseAttrs(padding, s, s, mult, act, d, d)
    xq, wq = act_quant(rng), weight_quant(rng, out_c, 3, rng.random() < 0.7)
    wshape = (1, kh, kw, out_c)
    x = Tensor("input", (n, h, w, c), DType.INT8, xq)
    wt = Tensor("weights", wshape, DType.INT8, wq, int8_weights(rng, wshape))
    b = int32_bias(rng, out_c, xq, wq)
    y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, kh * kw))
    return single_op("DEPTHWISE_CONV_2D", [x, wt, b], y, attrs)


def fc_graph(rng, case) -> Graph:
    rows, depth, units = case
    xq, wq = act_quant(rng), weight_quant(rng, units, 0, rng.random() < 0.5)
    x = Tensor("input", (rows, depth), DType.INT8, xq)
    wt = Tensor("weights", (units, depth), DType.INT8, wq, int8_weights(rng, (units, depth)))
    b = int32_bias(rng, units, xq, wq)
    y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, depth))
    return single_op("FULLY_CONNECTED", [x, wt, b], y, FullyConnectedAttrs("NONE", 0, False))


def prepared():
    """The cases, each one call, and the arena scenarios of every call with TFLM's outputs."""
    rng = np.random.default_rng(SEED)
    graph = merge([dw_graph(rng, c) for c in DW] + [fc_graph(rng, c) for c in FC], "m4runs")
    data, want = placements.tflm_case(graph, SEED + 1)
    calls = lowered(graph)
    assert len(calls) == len(DW) + len(FC)
    kernels = [c.kernel for c in calls]
    assert kernels.count("mf_dwconv2d_s8_dsp") == len(DW) - 2  # not the last two
    assert [c.params["clamp"] for c in calls if c.kernel == "mf_dwconv2d_s8_dsp"].count(1) == 1  # RELU6
    assert kernels.count("mf_fc_s8_dsp8") == len(FC) - 2 and kernels.count("mf_fc_s8_dsp") == 2
    return placements.picked(calls, data, want, lambda c: True)


def test_interior_runs_and_whole_chunk_rows_match_tflm_on_host(tmp_path, dense_fast):
    failures = placements.run(prepared(), tmp_path)
    assert not failures, "\n".join(failures)


@on_qemu
def test_interior_runs_and_whole_chunk_rows_match_tflm_under_qemu_m4(tmp_path, dense_fast):
    failures = placements.run(prepared(), tmp_path, "qemu-mps2-an386")
    assert not failures, "\n".join(failures)
