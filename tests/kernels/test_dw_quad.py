"""The DSP depthwise kernel's 3x3 stride-1 paths (mf_dw_pairs.h by offsets and by addresses, single
pixels, the MF_W16 weight layout with the left shift folded in) vs TFLite Micro, seeded, on the
host (the portable C path, sanitizers on) and under QEMU mps2-an386 (the assembly): rows of 4 to
13 outputs, SAME and VALID, padding on every side, a vertical stride and dilation, two images,
channel counts from 4 to 256 (pairs above MF_STAGE_MAX channels when the second pixel may store
straight out), each call also over its input at the planner's tightest forward and backward
shifts (reverse = 1), where the second pixel of a pair stores straight out (whole pixels away)
or through the held buffer, and writing a channel slice of a wider output (out_stride). The same cases again with the output zero point -128 (a ReLU's), which
the pairs, quads and single pixels requantize without the sign step (MF_DW_SIGN 0), and with a
ReLU6's clamp (single pixels through the stage)."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.ir import DType, Graph, Quant, Tensor
from microfuse.lower import fast
from microfuse.lower.call import ConstArray, largest
from microfuse.ops.attrs import DepthwiseAttrs
from microfuse.testing.modelgen import merge
from microfuse.testing.stages import lowered
from tests.harness import on_qemu
from tests.kernels import placements
from tests.kernels.cases import act_quant, int8_weights, int32_bias, out_quant, single_op, weight_quant

SEED = 23

# (batches, h, w, channels, stride_h, dilation_h, padding)
DW = [
    (1, 5, 4, 4, 1, 1, "SAME"),     # two pairs by addresses a row
    (1, 6, 5, 64, 1, 1, "SAME"),    # KWS's rows: a quad and a single pixel
    (1, 4, 6, 8, 1, 1, "VALID"),    # a run of interior pixels
    (2, 5, 9, 12, 1, 1, "SAME"),    # two images
    (1, 7, 7, 20, 2, 1, "SAME"),    # vertical stride 2
    (1, 7, 8, 28, 1, 2, "SAME"),    # vertical dilation 2
    (1, 4, 13, 44, 1, 1, "VALID"),  # 11 outputs: a run of odd length
    (1, 3, 6, 100, 1, 1, "SAME"),
    (1, 3, 10, 128, 1, 1, "SAME"),  # the held buffer's largest
    (1, 3, 8, 132, 1, 1, "SAME"),   # past it: pairs only when B may store straight out
    (1, 3, 6, 256, 1, 1, "VALID"),
    (1, 6, 12, 16, 1, 1, "SAME"),   # VWW's rows
    (1, 3, 16, 8, 1, 1, "SAME"),    # a run's last three and the border pixel: one quad by addresses
]
# stride 2 along the rows (mf_dw_pairs' MF_DW_STEP2 loop): (batches, h, w, channels, stride_h,
# dilation_h, padding)
DW2 = [
    (1, 5, 9, 8, 2, 1, "SAME"),     # VWW's cascade rows (odd width: a pair by addresses at the end)
    (1, 6, 12, 32, 2, 1, "SAME"),   # VWW's 12x12x32 layer's rows, even width
    (1, 7, 11, 16, 2, 1, "VALID"),  # a run of interior pixels, a lone one at its end
    (2, 5, 6, 64, 1, 2, "SAME"),    # two images, vertical dilation 2
    (1, 3, 7, 132, 2, 1, "SAME"),   # past the held buffer
    (1, 8, 16, 8, 2, 1, "SAME"),    # even width, right padding only: each row one run to its border
    (1, 6, 20, 16, 2, 1, "SAME"),   # the same, four groups (a lone last pixel would pair by addresses)
    (1, 7, 8, 12, 2, 1, "SAME"),    # the same, padding above and below: the top and bottom rows' runs
    (1, 4, 4, 16, 2, 1, "SAME"),    # the same, one pair a row (the right border's the first)
]


def dw_graph(rng, case, sw: int = 1, relu: bool = False, act: str = "NONE") -> Graph:
    """One case; relu: the output zero point -128 (the quantization a fused ReLU gives), so that
    every negative accumulator saturates to -128; act the fused activation."""
    n, h, w, c, sh, dh, padding = case
    attrs = DepthwiseAttrs(padding, sw, sh, 1, act, 1, dh)
    xq, wq = act_quant(rng), weight_quant(rng, c, 3, rng.random() < 0.7)
    wshape = (1, 3, 3, c)
    x = Tensor("input", (n, h, w, c), DType.INT8, xq)
    wt = Tensor("weights", wshape, DType.INT8, wq, int8_weights(rng, wshape))
    if act == "RELU6":  # the output scale 6 / 190 (the clamp at 62), the input's scaled alike
        yq, s6 = out_quant(rng, xq, wq, 9), np.float32(6 / 190)
        xq = Quant((np.float32(xq.scale[0] * s6 / yq.scale[0]),), xq.zero_point)
        x = Tensor("input", (n, h, w, c), DType.INT8, xq)
        yq = Quant((s6,), yq.zero_point)
        b = int32_bias(rng, c, xq, wq)
    else:
        b = int32_bias(rng, c, xq, wq)
        yq = out_quant(rng, xq, wq, 9)
    y = Tensor("output", (), DType.INT8, Quant(yq.scale, (-128,)) if relu else yq)
    return single_op("DEPTHWISE_CONV_2D", [x, wt, b], y, attrs)


def prepared(sw: int = 1, relu: bool = False, act: str = "NONE"):
    """The cases (stride sw along the rows), each one call, and the arena scenarios of every call
    with TFLM's outputs (act RELU6: every call clamps, its pixels one at a time through the stage)."""
    cases = DW if sw == 1 else DW2
    rng = np.random.default_rng(SEED + sw - 1)
    graph = merge([dw_graph(rng, c, sw, relu, act) for c in cases], "dw3x3")
    data, want = placements.tflm_case(graph, SEED + sw)
    calls = lowered(graph)
    assert [c.kernel for c in calls] == ["mf_dwconv2d_s8_dsp"] * len(cases)
    assert all(c.params["clamp"] == int(act == "RELU6") for c in calls)
    if relu:  # saturated and unsaturated outputs both, so the step's omission is seen either way
        out = np.concatenate([v.ravel() for v in want.values()])
        assert np.mean(out == -128) > 0.2 and np.mean(out > -100) > 0.2
    # and each call writing a channel slice of a wider tensor (out_stride: a run's outputs then
    # step further than its inputs)
    sliced = [placements.strided(c, [data[t.name] for t in c.inputs], want[c.outputs[0].name],
                                 f"{c.kernel} {c.sources[0].name}") for c in calls]
    return placements.picked(calls, data, want, lambda c: True) + sliced


def sizes(runs, sign: int = 1) -> dict[str, int]:
    """The macros a build of these calls defines (mf_config.h): stride 1, so the pairs of
    neighbours only (MF_DW_ADJ), and rows of four interior pixels or more four at a time
    (MF_DW_QUADS, mf_dw_quads.h), rows from their left border as one run of them (MF_DW_EDGES);
    the sign step (MF_DW_SIGN) unless every output zero point is -128."""
    found = largest([r.call.sizes for r in runs])
    assert found == {"MF_DW_ADJ": 1, "MF_DW_QUADS": 1, "MF_DW_SPREAD": 0, "MF_DW_EDGES": 1, "MF_DW_SIGN": sign}
    return found


# the code a build compiles: its own (quads), the quads without pairs nor rows from their border
# (KWS's build: a row's two or three left over go one at a time, its quads by addresses at each
# end and its runs between), the pairs of neighbours only, both pair loops (a build
# with other pairs too: each pair takes one at run time), the other pairs' loop only (no
# dw_sizes macros: every pair by it)
BUILDS = {"quads": None, "quads_alone": {"MF_DW_QUADS": 1, "MF_DW_SPREAD": 0},
          "adjacent": {"MF_DW_ADJ": 1, "MF_DW_SPREAD": 0},
          "both": {"MF_DW_ADJ": 1, "MF_DW_SPREAD": 1}, "spread": {}}


def defines(build: str, runs) -> dict[str, int]:
    return sizes(runs) if build == "quads" else BUILDS[build]


@pytest.mark.parametrize("build", list(BUILDS))
def test_3x3_stride1_paths_match_tflm_on_host(tmp_path, build):
    runs = prepared()
    failures = placements.run(runs, tmp_path, defines=defines(build, runs))
    assert not failures, "\n".join(failures)


@on_qemu
@pytest.mark.parametrize("build", list(BUILDS))
def test_3x3_stride1_paths_match_tflm_under_qemu_m4(tmp_path, build):
    runs = prepared()
    failures = placements.run(runs, tmp_path, "qemu-mps2-an386", defines=defines(build, runs))
    assert not failures, "\n".join(failures)


@on_qemu
@pytest.mark.parametrize("build", ["quads", "quads_alone", "both"])
def test_3x3_stride1_paths_match_tflm_under_qemu_m7(tmp_path, build):
    """The same assembly built for the Cortex-M7 (mps2-an500)."""
    runs = prepared()
    failures = placements.run(runs, tmp_path, "qemu-mps2-an500", defines=defines(build, runs))
    assert not failures, "\n".join(failures)


# the output zero point -128: the build's own macros (the sign step left out), and the pairs'
# loops all three, also without it
RELU_BUILDS = {"quads": None, "both": {"MF_DW_ADJ": 1, "MF_DW_SPREAD": 1, "MF_DW_SIGN": 0}}


def relu_defines(build: str, runs) -> dict[str, int]:
    return sizes(runs, sign=0) if build == "quads" else RELU_BUILDS[build]


@pytest.mark.parametrize("build", list(RELU_BUILDS))
def test_3x3_stride1_paths_without_the_sign_step_match_tflm_on_host(tmp_path, build):
    runs = prepared(relu=True)
    failures = placements.run(runs, tmp_path, defines=relu_defines(build, runs))
    assert not failures, "\n".join(failures)


@on_qemu
@pytest.mark.parametrize("board", ["qemu-mps2-an386", "qemu-mps2-an500"])
@pytest.mark.parametrize("build", list(RELU_BUILDS))
def test_3x3_stride1_paths_without_the_sign_step_match_tflm_under_qemu(tmp_path, build, board):
    runs = prepared(relu=True)
    failures = placements.run(runs, tmp_path, board, defines=relu_defines(build, runs))
    assert not failures, "\n".join(failures)


# a ReLU6's clamp, the output zero point -128: every pixel one at a time through the stage
# (mf_dw_pixels), in the build's own macros without the sign step, or with it (no dw_sizes macros)
CLAMP_BUILDS = {"own": None, "sign": {}}


def clamp_defines(build: str, runs) -> dict[str, int]:
    if build == "sign":
        return CLAMP_BUILDS[build]
    found = largest([r.call.sizes for r in runs])
    assert found == {"MF_DW_SPREAD": 0, "MF_DW_SIGN": 0}
    return found


@pytest.mark.parametrize("build", list(CLAMP_BUILDS))
def test_clamped_pixels_without_the_sign_step_match_tflm_on_host(tmp_path, build):
    runs = prepared(relu=True, act="RELU6")
    failures = placements.run(runs, tmp_path, defines=clamp_defines(build, runs))
    assert not failures, "\n".join(failures)


@on_qemu
@pytest.mark.parametrize("board", ["qemu-mps2-an386", "qemu-mps2-an500"])
@pytest.mark.parametrize("build", list(CLAMP_BUILDS))
def test_clamped_pixels_without_the_sign_step_match_tflm_under_qemu(tmp_path, build, board):
    runs = prepared(relu=True, act="RELU6")
    failures = placements.run(runs, tmp_path, board, defines=clamp_defines(build, runs))
    assert not failures, "\n".join(failures)


# stride 2: its own loop (as built), beside the others, or the other pairs' loop only
BUILDS2 = {"step2": None, "all": {"MF_DW_ADJ": 1, "MF_DW_STEP2": 1, "MF_DW_SPREAD": 1}, "spread": {},
           "step2_relu": None}


def defines2(build: str, runs) -> dict[str, int]:
    if build.startswith("step2"):
        found = largest([r.call.sizes for r in runs])
        assert found == {"MF_DW_STEP2": 1, "MF_DW_SPREAD": 0, "MF_DW_EDGES": 1, "MF_DW_SIGN": int(build == "step2")}
        return found
    return BUILDS2[build]


@pytest.mark.parametrize("build", list(BUILDS2))
def test_3x3_stride2_pairs_match_tflm_on_host(tmp_path, build):
    runs = prepared(2, build.endswith("relu"))
    failures = placements.run(runs, tmp_path, defines=defines2(build, runs))
    assert not failures, "\n".join(failures)


@on_qemu
@pytest.mark.parametrize("board", ["qemu-mps2-an386", "qemu-mps2-an500"])
@pytest.mark.parametrize("build", list(BUILDS2))
def test_3x3_stride2_pairs_match_tflm_under_qemu(tmp_path, build, board):
    runs = prepared(2, build.endswith("relu"))
    failures = placements.run(runs, tmp_path, board, defines=defines2(build, runs))
    assert not failures, "\n".join(failures)


def test_quads_in_builds_with_four_pixels_a_row_pairs_where_two_or_three_are_left():
    """Rows of four pixels or more set MF_DW_QUADS; the pairs of neighbours (MF_DW_ADJ) only where
    a row leaves two or three (padding 0 or 1: its width modulo 4; any wider padding: always):
    KWS's five-wide rows a quad and a single pixel, no pairs; VWW's 48-wide rows none, its 6-wide
    ones a pair; stride 2 its own pairs' loop, stride 3 and dilation the other pairs' one, an
    epilogue's clamp no pairs at all; rows from border to border in one call (MF_DW_EDGES) where
    padding 1 on the left starts them with two quads or a quad and a run, and at stride 2 where
    padding 1 on the right only ends an even width."""
    base = dict(k_h=3, k_w=3, stride_w=1, dilation_w=1, clamp=0, quant=ConstArray("quant", table(-127)))
    adj = {"MF_DW_ADJ": 1, "MF_DW_SPREAD": 0, "MF_DW_SIGN": 1}
    quads = {"MF_DW_QUADS": 1, "MF_DW_SPREAD": 0, "MF_DW_SIGN": 1, "MF_DW_EDGES": 0}
    edges = dict(quads, MF_DW_EDGES=1)
    assert fast.dw_sizes(dict(base, in_w=5, out_w=5, pad_w=1)) == quads  # one quad, no run
    assert fast.dw_sizes(dict(base, in_w=6, out_w=6, pad_w=1)) == dict(adj, **edges)  # a quad and a run
    assert fast.dw_sizes(dict(base, in_w=7, out_w=7, pad_w=1)) == dict(adj, **edges)
    assert fast.dw_sizes(dict(base, in_w=8, out_w=8, pad_w=1)) == edges  # two quads
    assert fast.dw_sizes(dict(base, in_w=48, out_w=48, pad_w=1)) == edges
    assert fast.dw_sizes(dict(base, in_w=6, out_w=4, pad_w=0)) == quads
    assert fast.dw_sizes(dict(base, in_w=7, out_w=9, pad_w=2)) == dict(adj, **quads)
    assert fast.dw_sizes(dict(base, in_w=5, out_w=3, pad_w=0)) == adj
    step2 = {"MF_DW_SPREAD": 0, "MF_DW_STEP2": 1, "MF_DW_SIGN": 1}
    assert fast.dw_sizes(dict(base, in_w=48, out_w=24, pad_w=0, stride_w=2)) == dict(step2, MF_DW_EDGES=1)
    assert fast.dw_sizes(dict(base, in_w=47, out_w=24, pad_w=0, stride_w=2)) == step2  # no right padding
    assert fast.dw_sizes(dict(base, in_w=46, out_w=23, pad_w=0, stride_w=2)) == step2  # an odd width
    assert fast.dw_sizes(dict(base, in_w=48, out_w=16, pad_w=0, stride_w=3)) == {"MF_DW_SPREAD": 1,
                                                                                 "MF_DW_SIGN": 1}
    assert fast.dw_sizes(dict(base, in_w=48, out_w=48, pad_w=1, dilation_w=2)) == {"MF_DW_SPREAD": 1,
                                                                                   "MF_DW_SIGN": 1}
    assert fast.dw_sizes(dict(base, in_w=48, out_w=48, pad_w=1, clamp=1)) == {"MF_DW_SPREAD": 0,
                                                                              "MF_DW_SIGN": 1}


def table(out_zp: int, rshift: int = 7, mult: int = 1 << 30) -> np.ndarray:
    """A one-group channel table (lower/fast.py quant_blocks) of four channels alike."""
    rnd = (1 << (rshift - 1)) + (out_zp << rshift)
    return np.array([[0] * 4, [mult] * 4, [rnd] * 4, [rshift] * 4], np.int32).reshape(-1)


def test_the_sign_step_only_where_a_negative_accumulator_can_requantize_above_minus_128():
    """MF_DW_SIGN 0 where every live channel's output zero point is -128 (a ReLU's); a dead
    channel (multiplier 0, its constant in the rounding term) is the same either way; any other
    zero point, or a negative multiplier, keeps the step; a build with both keeps it (largest)."""
    assert not fast.dw_sign(table(-128))
    assert not fast.dw_sign(table(-128, rshift=1))
    assert not fast.dw_sign(table(-128, rshift=23))
    assert fast.dw_sign(table(-127))
    assert fast.dw_sign(table(0))
    assert fast.dw_sign(table(-128, mult=-(1 << 30)))
    dead = table(-128)
    dead[4:8], dead[8:12], dead[12:16] = 0, 1 + 2 * (5 - 128), 1
    assert not fast.dw_sign(dead)
    mixed = table(-128)
    mixed[11] = table(-127)[11]
    assert fast.dw_sign(mixed)
    base = dict(k_h=3, k_w=3, stride_w=1, dilation_w=1, clamp=0, in_w=48, out_w=48, pad_w=1)
    relu = fast.dw_sizes(dict(base, quant=ConstArray("quant", table(-128))))
    other = fast.dw_sizes(dict(base, quant=ConstArray("quant", table(3))))
    assert relu["MF_DW_SIGN"] == 0 and largest([relu, other])["MF_DW_SIGN"] == 1
