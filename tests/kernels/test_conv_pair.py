"""mf_conv2d_s8_pair (two output pixels per pass, runtime_c/include/mf_conv2d_s8_pair_body.h) vs
TFLite Micro: pointwise and windowed convs on 8..72 input channels (windows up to the buffer), padding, strides, odd pixel
counts (a lone last pixel), border pixels that run alone, odd output channels, every fused
epilogue; the portable C path on the host (sanitizers on) and the assembly under QEMU mps2-an386,
each call also with its output over its input at the planner's tightest shifts, both directions."""

from __future__ import annotations

import numpy as np

from microfuse.ir import DType, Graph, Quant, Tensor
from microfuse.lower import fast, fast_gemm
from microfuse.ops.attrs import ConvAttrs
from microfuse.testing.modelgen import merge
from microfuse.testing.stages import lowered
from tests.conftest import REPO
from tests.harness import always_fuse, case_count, on_qemu  # noqa: F401 (a fixture)
from tests.kernels import placements
from tests.kernels.cases import (ACTIVATIONS, act_quant, f32, int8_weights, out_quant, random_conv, single_op,
                                 weight_quant)
from tests.kernels.test_fast_kernels import EPILOGUES, suffix, with_epilogue

SEED = 23
KERNEL = "mf_conv2d_s8_pair"


def pair_graph(rng, i: int) -> Graph:
    """A conv the pair kernel fits: 1x1 on >= 16 channels (every other case), else a k_h x k_w
    window on >= 16; odd sizes and out_c, SAME padding at the borders; some windows (3x3 on 72 channels) too big for
    the buffer (those keep mf_conv2d_s8_gemm)."""
    pointwise = i % 2 == 0
    ic = int(rng.choice([16, 24, 32, 40, 64, 72])) if pointwise else int(rng.choice([16, 24, 32, 72]))
    oc = int(rng.choice([1, 3, 4, 6, 8, 13, 16]))
    kh, kw = (1, 1) if pointwise else (int(rng.integers(1, 4)), int(rng.integers(2, 4)))
    while kh * kw * ic > fast_gemm.PAIR_WIDE and i % 3:  # mostly windows the buffer pairs
        kh, kw = max(kh - 1, 1), 2
    h, w = int(rng.integers(2, 8)), int(rng.integers(2, 8))  # (one output pixel keeps the gemm kernel)
    sh, sw = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    if pointwise and ic < fast_gemm.MIN_IN_C_STRIDED_1X1:  # (a strided one keeps the gemm kernel)
        sh = sw = 1
    padding = "VALID" if pointwise or rng.random() < 0.3 else "SAME"
    dilation_h = int(rng.choice([1, 1, 2]))
    if padding == "VALID":
        h, w = max(h, (kh - 1) * dilation_h + 1), max(w, kw)
    act = str(rng.choice(ACTIVATIONS))
    if i % 16 == 0:  # no epilogue (EPILOGUES[0]) nor clamp: more channels than the stage holds
        oc, act, h, w = fast_gemm.PAIR_OUT_MAX + 8, "NONE", min(h, 3), min(w, 3)
    attrs = ConvAttrs(padding, sw, sh, act, 1, dilation_h)
    return random_conv(rng, (h, w), (oc, kh, kw, ic), attrs)


def prepared(count_local: int, count_ci: int = 24):
    rng = np.random.default_rng(SEED)
    n = case_count(count_local, count_ci)
    graph = merge([with_epilogue(rng, pair_graph(rng, i), EPILOGUES[i % len(EPILOGUES)])
                   for i in range(n)], "pair")
    data, want = placements.tflm_case(graph, SEED + 1)
    calls = lowered(graph)
    return calls, placements.picked(calls, data, want, lambda c: c.kernel.startswith(KERNEL))


def test_pair_conv_matches_tflm_on_host_in_overlapping_arenas(tmp_path, always_fuse):
    calls, runs = prepared(16)
    kernels = {c.kernel for c in calls}
    # a case whose shortcut requantization is not provably exact keeps another kernel
    several = [c for c in calls if np.prod(c.sources[0].outputs[0].shape[:-1]) >= 2]  # one pixel: the gemm's
    assert sum(c.kernel.startswith(KERNEL) for c in several) >= 0.8 * len(several), kernels
    assert {f"{KERNEL}_{suffix(e)}" if e else KERNEL for e in EPILOGUES} <= kernels
    assert any(r.call.params.get(r.call.reverse_key or "", 0) == 1 for r in runs)
    assert any(c.kernel == KERNEL and c.params["out_c"] > fast_gemm.PAIR_OUT_MAX for c in calls)
    failures = placements.run(runs, tmp_path)
    assert not failures, "\n".join(failures)


@on_qemu
def test_pair_conv_matches_tflm_under_qemu_m4_in_overlapping_arenas(tmp_path, always_fuse):
    """The assembly loop (mf_pair_blocks) on Cortex-M4F."""
    calls, runs = prepared(8)
    assert any(c.kernel == KERNEL for c in calls)
    failures = placements.run(runs, tmp_path, "qemu-mps2-an386")
    assert not failures, "\n".join(failures)


def test_pair_conv_matches_tflm_on_host_in_the_m7_buffer_layout(tmp_path, always_fuse):
    """MF_WIDE_LOADS (a Cortex-M7 build's mf_config.h): both pixels' words side by side, C loop."""
    calls, runs = prepared(8)
    failures = placements.run(runs, tmp_path, defines={"MF_WIDE_LOADS": 1})
    assert not failures, "\n".join(failures)


@on_qemu
def test_pair_conv_matches_tflm_under_qemu_m7_in_its_buffer_layout(tmp_path, always_fuse):
    """The M7's assembly loop (LDRD of both pixels' words: programs.run defines the core's macros)."""
    calls, runs = prepared(8)
    failures = placements.run(runs, tmp_path, "qemu-mps2-an500")
    assert not failures, "\n".join(failures)


def pointwise_runs(count: int):
    """The scenarios of pointwise calls (1x1, stride 1, no padding): all a build of MF_PAIR_WINDOWS 0 has."""
    calls, runs = prepared(count)
    runs = [r for r in runs if fast_gemm.pair_sizes(r.call.params)["MF_PAIR_WINDOWS"] == 0]
    assert runs and any(r.call.params.get(r.call.reverse_key or "", 0) == 1 for r in runs)
    assert {r.call.kernel for r in runs} > {KERNEL}  # fused variants too
    return runs


def test_pair_conv_matches_tflm_on_host_without_window_readers(tmp_path, always_fuse):
    """MF_PAIR_WINDOWS 0 (a build whose paired convs are all pointwise): the loop reads each pixel's
    run itself, mf_pair_read and the window code compiled out."""
    failures = placements.run(pointwise_runs(16), tmp_path, defines={"MF_PAIR_WINDOWS": 0})
    assert not failures, "\n".join(failures)


@on_qemu
def test_pair_conv_matches_tflm_under_qemu_without_window_readers(tmp_path, always_fuse):
    """The same on the M4 and M7 assembly loops."""
    runs = pointwise_runs(16)
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        failures = placements.run(runs, tmp_path / board, board, defines={"MF_PAIR_WINDOWS": 0})
        assert not failures, "\n".join(failures)


def test_a_build_compiles_the_window_readers_only_when_a_paired_conv_has_windows(tmp_path):
    """mf_config.h: MF_PAIR_WINDOWS 0 when every paired conv is pointwise, 1 when one has a window."""
    from microfuse.pipeline import build

    rng = np.random.default_rng(SEED)
    graphs = [pair_graph(rng, i) for i in range(8)]
    for name, picked, windows in (("pointwise", graphs[0:8:2], 0), ("mixed", graphs, 1)):
        compiled = build(merge(picked, name), tmp_path / name)
        calls = [c for c in compiled.calls if c.kernel.startswith(KERNEL)]
        assert calls and any(fast_gemm.pair_sizes(c.params)["MF_PAIR_WINDOWS"] for c in calls) == windows
        assert f"#define MF_PAIR_WINDOWS {windows}\n" in (tmp_path / name / "mf_config.h").read_text()


def test_an_m7_build_asks_for_wide_loads_and_an_m4_build_does_not(tmp_path):
    """lower/tuning.py: the board's core picks the macros in mf_config.h."""
    from microfuse.pipeline import Options, build

    rng = np.random.default_rng(SEED)
    graph = pair_graph(rng, 0)
    for board, wide in (("qemu-mps2-an500", True), ("qemu-mps2-an386", False), (None, False)):
        out = tmp_path / str(board)
        build(graph, out, Options(board=board))
        assert ("#define MF_WIDE_LOADS 1\n" in (out / "mf_config.h").read_text()) == wide, board


def test_pair_fits_only_eight_channel_runs_and_a_stage_of_both_pixels():
    rng = np.random.default_rng(SEED)
    g = pair_graph(rng, 0)
    op = g.ops[0]
    assert fast_gemm.pair_fits(op, "balanced") and not fast_gemm.pair_fits(op, "size")
    for ic in (4, 12, 36):  # 1x1: not a multiple of 8
        wshape = (4, 1, 1, ic)
        op.inputs[1] = Tensor("weights", wshape, DType.INT8, op.inputs[1].quant, int8_weights(rng, wshape))
        assert not fast_gemm.pair_fits(op, "balanced")


def test_a_pointwise_conv_on_eight_channels_pairs_only_where_its_rows_are_wide():
    """8 -> 16 at 48 pixels a row (VWW's, 6 K MACs a row) pairs; at 8 a row (the tiny example's) it
    keeps the gemm kernel, which a model with no other paired conv links anyway (5 KB less flash)."""
    rng = np.random.default_rng(SEED)
    for width, pairs in ((48, True), (8, False)):
        x = Tensor("input", (1, 2, width, 8), DType.INT8, act_quant(rng))
        wq = weight_quant(rng, 16, 0, True)
        wt = Tensor("weights", (16, 1, 1, 8), DType.INT8, wq, int8_weights(rng, (16, 1, 1, 8)))
        y = Tensor("output", (), DType.INT8, out_quant(rng, x.quant, wq, 8))
        op = single_op("CONV_2D", [x, wt, None], y, ConvAttrs("VALID", 1, 1, "RELU", 1, 1)).ops[0]
        assert fast_gemm.pair_fits(op, "balanced") == pairs, width


def test_a_build_sizes_the_window_buffer_by_its_largest_paired_window(tmp_path):
    """mf_config.h defines MF_PAIR_WIDE as the build's largest paired window (the stack buffer), not
    the kernel's bound; a build without the pair kernel leaves the bound."""
    from microfuse.pipeline import build

    rng = np.random.default_rng(SEED)
    graph = merge([pair_graph(rng, i) for i in range(6)], "sizes")
    compiled = build(graph, tmp_path / "lib")
    depths = [c.params["depth"] for c in compiled.calls if c.kernel == KERNEL]
    paired = [d for d in depths if d <= fast_gemm.PAIR_WIDE]
    assert paired and max(paired) < fast_gemm.PAIR_WIDE
    config = (tmp_path / "lib" / "mf_config.h").read_text()
    assert f"#define MF_PAIR_WIDE {max(paired)}\n" in config
    rng = np.random.default_rng(SEED)
    graph = merge([pair_graph(rng, i) for i in range(6) if i % 3 == 0], "big")  # (windows over the buffer)
    compiled = build(graph, tmp_path / "big")
    if not any(c.kernel.startswith(KERNEL) for c in compiled.calls):  # no paired conv: the bound stays
        assert "MF_PAIR_WIDE" not in (tmp_path / "big" / "mf_config.h").read_text()


def test_mixed_weights_hold_both_channels_and_the_fits_rule_guards_their_lanes_and_sums():
    """pair_weights' lanes are 256 w[c'] + w[c] (c' the odd channel of each pair); mixed_fits refuses
    a lane out of int16 (w[c'] = -128 beside a negative w[c]), a live odd channel whose accumulator
    may reach MIX_BOUND (256 times it must fit an int32), and a left shift other than the loop's (1)."""
    rng = np.random.default_rng(SEED)
    taps = int8_weights(rng, (8, 16))
    taps[0, :3], taps[1, :3] = (-128, 5, -7), (-127, -128, 127)  # (-128 even, -128 odd beside 5)
    words = fast_gemm.pair_weights(taps).view(np.int16).astype(np.int64)
    # axes as pair_weights: (block, group, half, channel pair, value pair); v = 4 g + 2 k + h
    lanes = words.reshape(2, 4, 2, 2, 2)
    t = taps.astype(np.int64)
    for b, g, h, cp, k in np.ndindex(lanes.shape):
        c, v = 4 * b + 2 * cp, 4 * g + 2 * k + h
        assert lanes[b, g, h, cp, k] == 256 * t[c + 1, v] + t[c, v]
    quant = np.zeros((2, 4, 4), np.int64)
    quant[:, 1] = 1 << 30  # live channels, bias 0
    assert fast_gemm.mixed_fits(taps, quant.reshape(-1), 1)
    assert not fast_gemm.mixed_fits(taps, quant.reshape(-1), fast_gemm.MIX_LSHIFT + 1)
    bad = taps.copy()
    bad[5, 9], bad[4, 9] = -128, -1
    assert not fast_gemm.mixed_fits(bad, quant.reshape(-1), 1)
    deep = np.zeros((4, 576), np.int8)
    deep[0] = deep[2] = 127  # even channels: only the shortcut's bound
    assert fast_gemm.mixed_fits(deep, quant[:1].reshape(-1), 1)
    deep[3] = 127  # 576 * 127 * 128 >= 2**23
    assert not fast_gemm.mixed_fits(deep, quant[:1].reshape(-1), 1)
    quant[0, 1, 3] = 0  # a dead channel gives its constant whatever its accumulator
    assert fast_gemm.mixed_fits(deep, quant[:1].reshape(-1), 1)


def extreme_graph(rng) -> tuple[Graph, np.ndarray]:
    """A 1x1 conv on 512 channels (9 pixels: 4 pairs and a lone one) whose odd channels' sums come
    near MIX_BOUND (all-127 weights on inputs at the int8 ends, input zero point 0, no bias), with
    -128 weights wherever the mixed lanes allow them, and its input: pixels at both ends, one
    following channel 3's signs, the rest random; an output scale that keeps such sums apart."""
    ic, oc = 512, 8
    xq = Quant((f32(0.02),), (0,))
    wq = weight_quant(rng, oc, 0, False)
    w = int8_weights(rng, (oc, ic))
    w[0] = -128  # even channel: any value
    w[1] = 127  # odd beside a negative one: up to 127; sum 512 * 127 * 128 < 2**23
    w[3] = np.where(w[2] >= 0, -128, 127)
    x = Tensor("input", (1, 3, 3, ic), DType.INT8, xq)
    wt = Tensor("weights", (oc, 1, 1, ic), DType.INT8, wq, w.reshape(oc, 1, 1, ic))
    spread = float(xq.scale[0]) * float(wq.scale[0]) * 2**23 / 128
    y = Tensor("output", (), DType.INT8, Quant((f32(spread),), (0,)))
    graph = single_op("CONV_2D", [x, wt, None], y, ConvAttrs("VALID", 1, 1, "NONE", 1, 1))
    feed = rng.integers(-128, 128, size=(1, 3, 3, ic)).astype(np.int8)
    feed[0, 0, 0], feed[0, 0, 1] = 127, -128
    feed[0, 1, 1] = np.where(w[3] < 0, -128, 127)
    feed[0, 2, 2] = -128  # the lone pixel
    return graph, feed


def extreme_runs():
    from tests.harness import reference

    graph, feed = extreme_graph(np.random.default_rng(SEED))
    (tflm,) = reference(graph, [[feed]])
    calls = lowered(graph)
    assert [c.kernel for c in calls] == [KERNEL]
    return placements.picked(calls, {"input": feed}, {graph.outputs[0].name: np.asarray(tflm[0]).astype(np.int8)},
                             lambda c: True)


def test_pair_conv_matches_tflm_on_host_with_odd_sums_near_the_mixed_bound(tmp_path):
    failures = placements.run(extreme_runs(), tmp_path)
    assert not failures, "\n".join(failures)


@on_qemu
def test_pair_conv_matches_tflm_under_qemu_with_odd_sums_near_the_mixed_bound(tmp_path):
    """The assembly's mixed accumulators (wrapping past int32) on Cortex-M4F and Cortex-M7."""
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        failures = placements.run(extreme_runs(), tmp_path / board, board)
        assert not failures, "\n".join(failures)


def test_the_stream_holds_each_blocks_biases_weights_and_table_and_flags_the_last():
    """pair_stream: per block its 4 biases (odd ones mixed: 256 b[c'] + b[c], wrapping), its
    pair_weights words, then per channel (mult, round), an odd channel's round as 128 r + 64
    (wrapping), then the right shifts two to a word (s0 + 2^9 s1, s2 + 2^9 s3), PAIR_LAST (bit 8)
    in the last block's second word only, PAIR_LONG (bit 31) in every block's of a window over
    PAIR_SHORT; pair_ties reads the zero points back from it."""
    from microfuse.lower.call import ConstArray

    rng = np.random.default_rng(SEED)
    taps = int8_weights(rng, (6, 16))  # two blocks, the last padded
    table = rng.integers(-2**31, 2**31, size=(2, 4, 4)).astype(np.int32)
    table[:, 3] = rng.integers(1, 32, size=(2, 4))
    stream = fast_gemm.pair_stream(taps, ConstArray("quant", table.reshape(-1))).data.reshape(2, -1)
    words = fast_gemm.pair_weights(taps).reshape(2, -1)
    assert stream.shape == (2, fast_gemm.PAIR_BLOCK + words.shape[1])
    t = table.astype(np.int64)
    mixed = t[:, 0].copy()
    mixed[:, 1::2] = (256 * t[:, 0, 1::2] + t[:, 0, 0::2] + 2**31) % 2**32 - 2**31
    assert np.array_equal(stream[:, :4], mixed)
    assert np.array_equal(stream[:, 4:-10], words)
    want = t[:, 1:3].transpose(0, 2, 1).reshape(2, 8).copy()
    want[:, 3::4] = (128 * want[:, 3::4] + 64 + 2**31) % 2**32 - 2**31  # channels 1 and 3's rounds
    assert np.array_equal(stream[:, -10:-2], want)
    shifts = t[:, 3, 0::2] + 512 * t[:, 3, 1::2]
    shifts[1, 1] += 256  # PAIR_LAST: bit 8, where MF_PAIR_TABLE's ASRS by 9 leaves it in C
    assert fast_gemm.PAIR_LAST == 256
    assert np.array_equal(stream[:, -2:], shifts)
    # a window over PAIR_SHORT values (16 chunks): every block's PAIR_LONG (the chunk loop's turns)
    long_taps = int8_weights(rng, (6, fast_gemm.PAIR_SHORT + 8))
    long_stream = fast_gemm.pair_stream(long_taps, ConstArray("quant", table.reshape(-1))).data.reshape(2, -1)
    shifts[:, 1] -= 2**31  # PAIR_LONG: the sign bit (N after the ASRS)
    assert fast_gemm.PAIR_LONG == 2**31
    assert np.array_equal(long_stream[:, -2:], shifts)
    # zero points back from the rounds (2^(s-1) + zp 2^s, shifts mixed_fits allows): all -128,
    # then one live channel's 5
    table[:, 3] = rng.integers(1, 16, size=(2, 4))
    taps = long_taps  # (pair_ties reads past the flags)
    s = table[:, 3].astype(np.int64)
    table[:, 2] = (1 << (s - 1)) - (128 << s)
    params = {"depth": taps.shape[1], "weights": fast_gemm.pair_stream(taps, ConstArray("quant", table.reshape(-1)))}
    assert fast_gemm.pair_ties(params) == 0
    table[1, 2, 1] = (1 << (s[1, 1] - 1)) + (5 << s[1, 1])
    params["weights"] = fast_gemm.pair_stream(taps, ConstArray("quant", table.reshape(-1)))
    assert fast_gemm.pair_ties(params) == 1
    table[1, 1, 1] = 0  # a dead channel: its zero point does not matter
    params["weights"] = fast_gemm.pair_stream(taps, ConstArray("quant", table.reshape(-1)))
    assert fast_gemm.pair_ties(params) == 0


def run_scenarios():
    """The scenarios of calls whose pairs go as one run (mf_pair_run: pointwise, no epilogue nor
    clamp, whole blocks): one to 22 pairs, even and odd pixel counts (a lone last pixel after the
    run), 8 to 64 input channels, both directions."""
    rng = np.random.default_rng(SEED + 5)
    shapes = [((1, 3), 16, 8), ((2, 2), 16, 4), ((3, 5), 24, 12), ((5, 9), 64, 16), ((4, 4), 32, 136),
              ((7, 3), 40, 8)]
    graph = merge([random_conv(rng, hw, (oc, 1, 1, ic), ConvAttrs("VALID", 1, 1, "NONE", 1, 1))
                   for hw, ic, oc in shapes], "runs")
    data, want = placements.tflm_case(graph, SEED + 6)
    calls = lowered(graph)
    runs = placements.picked(calls, data, want, lambda c: c.kernel == KERNEL)
    runs = [r for r in runs if fast_gemm.pair_sizes(r.call.params)["MF_PAIR_RUNS"]]
    pixels = {r.call.params["out_h"] * r.call.params["out_w"] for r in runs}
    assert {3, 4, 15, 45, 16, 21} <= pixels, pixels
    assert any(r.call.params.get(r.call.reverse_key or "", 0) == 1 for r in runs)
    return runs


def test_pair_runs_match_tflm_on_host(tmp_path, always_fuse):
    """A run's next pairs read and widened in the loop (the portable path), both buffer layouts;
    and the same calls with the runs compiled out (MF_PAIR_RUNS 0: a pair per call)."""
    runs = run_scenarios()
    for name, defines in (("m4", {}), ("m7", {"MF_WIDE_LOADS": 1}), ("off", {"MF_PAIR_RUNS": 0})):
        failures = placements.run(runs, tmp_path / name, defines=defines)
        assert not failures, "\n".join(failures)


@on_qemu
def test_pair_runs_match_tflm_under_qemu(tmp_path, always_fuse):
    """The assembly's runs (the next pair's widening at 61) on the M4 and M7 loops, with and without
    window readers."""
    runs = run_scenarios()
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        for windows in (0, 1):
            failures = placements.run(runs, tmp_path / f"{board}-{windows}", board,
                                      defines={"MF_PAIR_WINDOWS": windows})
            assert not failures, "\n".join(failures)


def test_a_build_compiles_the_runs_only_when_a_paired_conv_can_run(tmp_path):
    """mf_config.h: MF_PAIR_RUNS 1 when some paired conv is pointwise and stores straight, else 0."""
    from microfuse.pipeline import build

    rng = np.random.default_rng(SEED)
    graphs = [pair_graph(rng, i) for i in range(8)]
    for name, picked in (("windows", graphs[1:8:2]), ("all", graphs)):
        compiled = build(merge(picked, name), tmp_path / name)
        calls = [c for c in compiled.calls if c.kernel.startswith(KERNEL)]
        runs = int(any(c.kernel == KERNEL and fast_gemm.pair_sizes(c.params)["MF_PAIR_RUNS"] for c in calls))
        assert calls and f"#define MF_PAIR_RUNS {runs}\n" in (tmp_path / name / "mf_config.h").read_text()
        assert runs == (name == "all"), name


def floor_zero_point(graph: Graph) -> Graph:
    """The graph with its output at zero point -128 (a ReLU's output as the MLPerf models have it)."""
    y = graph.outputs[0]
    y.quant = Quant(y.quant.scale, (-128,))
    return graph


def no_ties_runs(count: int):
    """pair_graph's convs (no epilogue) with outputs at zero point -128: a build of them sets
    MF_PAIR_TIES 0 (pair_ties)."""
    rng = np.random.default_rng(SEED + 9)
    graph = merge([floor_zero_point(pair_graph(rng, i)) for i in range(case_count(count))], "noties")
    data, want = placements.tflm_case(graph, SEED + 10)
    runs = placements.picked(lowered(graph), data, want, lambda c: c.kernel.startswith(KERNEL))
    assert runs and all(fast_gemm.pair_ties(r.call.params) == 0 for r in runs)
    assert {fast_gemm.pair_sizes(r.call.params)["MF_PAIR_WINDOWS"] for r in runs} == {0, 1}
    return runs


@on_qemu
def test_pair_conv_matches_tflm_under_qemu_without_ties(tmp_path, always_fuse):
    """MF_PAIR_TIES 0 (every paired conv's output zero point -128): the assembly requantizes without
    the sign term (a negative accumulator saturates to -128 however its ties round), on the M4 and
    M7 loops; and the calls near the mixed bound at that zero point."""
    runs = no_ties_runs(12)
    graph, feed = extreme_graph(np.random.default_rng(SEED))
    floor_zero_point(graph)
    from tests.harness import reference

    (tflm,) = reference(graph, [[feed]])
    extreme = placements.picked(lowered(graph), {"input": feed},
                                {graph.outputs[0].name: np.asarray(tflm[0]).astype(np.int8)}, lambda c: True)
    assert [fast_gemm.pair_ties(r.call.params) for r in extreme] == [0] * len(extreme)
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        failures = placements.run(runs + extreme, tmp_path / board, board, defines={"MF_PAIR_TIES": 0})
        assert not failures, "\n".join(failures)


@on_qemu
def test_pair_conv_needs_its_ties_where_the_zero_point_is_not_minus_128(tmp_path, always_fuse):
    """The cases of the other tests (any zero point) do reach negative ties: built without the sign
    term (MF_PAIR_TIES 0, which pair_ties never sets for them) some of their outputs differ."""
    calls, runs = prepared(8)
    assert any(fast_gemm.pair_ties(r.call.params) for r in runs)
    failures = placements.run(runs, tmp_path, "qemu-mps2-an386", defines={"MF_PAIR_TIES": 0})
    assert failures


def test_a_build_rounds_ties_only_when_a_paired_conv_needs_them(tmp_path):
    """mf_config.h: MF_PAIR_TIES 0 when every paired conv's output zero point is -128, else 1."""
    from microfuse.pipeline import build

    rng = np.random.default_rng(SEED)
    floor = [floor_zero_point(pair_graph(rng, i)) for i in range(4)]
    rng = np.random.default_rng(SEED + 1)
    other = [pair_graph(rng, i) for i in range(4)]
    for name, picked, ties in (("floor", floor, 0), ("mixed", floor + other, 1)):
        compiled = build(merge(picked, name), tmp_path / name)
        calls = [c for c in compiled.calls if c.kernel.startswith(KERNEL)]
        assert calls and max(fast_gemm.pair_ties(c.params) for c in calls) == ties
        assert f"#define MF_PAIR_TIES {ties}\n" in (tmp_path / name / "mf_config.h").read_text()


@on_qemu
def test_pair_conv_matches_tflm_under_qemu_with_the_loop_test_after_each_turn(tmp_path, always_fuse):
    """MF_PAIR_SHORT 0 (a build without a window of up to PAIR_SHORT values): the chunk loop's test after
    each turn (the other tests' builds take the default, 1: a short window's blocks skip it), on
    the M4 and M7 loops; the cases hold both kinds of window."""
    calls, runs = prepared(8)
    assert {fast_gemm.pair_sizes(r.call.params)["MF_PAIR_SHORT"] for r in runs} == {0, 1}
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        failures = placements.run(runs, tmp_path / board, board, defines={"MF_PAIR_SHORT": 0})
        assert not failures, "\n".join(failures)


def test_a_build_skips_the_loop_test_only_when_a_paired_conv_has_a_short_window(tmp_path):
    """mf_config.h: MF_PAIR_SHORT 1 when some paired conv's window is at most PAIR_SHORT values."""
    from microfuse.pipeline import build

    rng = np.random.default_rng(SEED)
    graphs = [pair_graph(rng, i) for i in range(12)]
    depth = [fast.conv_taps(g.ops[0]).shape[1] for g in graphs]
    longs = [g for g, d in zip(graphs, depth) if d > fast_gemm.PAIR_SHORT]
    shorts = [g for g, d in zip(graphs, depth) if d <= fast_gemm.PAIR_SHORT]
    assert longs and shorts
    for name, picked, short in (("long", longs, 0), ("both", longs + shorts[:1], 1)):
        compiled = build(merge(picked, name), tmp_path / name)
        calls = [c for c in compiled.calls if c.kernel.startswith(KERNEL)]
        assert calls and max(fast_gemm.pair_sizes(c.params)["MF_PAIR_SHORT"] for c in calls) == short
        assert f"#define MF_PAIR_SHORT {short}\n" in (tmp_path / name / "mf_config.h").read_text()


def deep_runs():
    """Pointwise convs on 128 to 264 channels (16, 17, 32 and 33 chunks: a window of exactly the
    unrolled chunks, and longer ones whose first turn is whole or partial), as runs and with an
    odd pixel count (a lone last pixel)."""
    rng = np.random.default_rng(SEED + 11)
    attrs = ConvAttrs("VALID", 1, 1, "NONE", 1, 1)
    graph = merge([random_conv(rng, (1, 5), (8, 1, 1, ic), attrs) for ic in (128, 136, 256, 264)], "deep")
    data, want = placements.tflm_case(graph, SEED + 12)
    calls = lowered(graph)
    assert sorted(c.params["depth"] for c in calls if c.kernel == KERNEL) == [128, 136, 256, 264]
    return placements.picked(calls, data, want, lambda c: c.kernel == KERNEL)


def test_deep_pointwise_pairs_match_tflm_on_host(tmp_path, always_fuse):
    failures = placements.run(deep_runs(), tmp_path)
    assert not failures, "\n".join(failures)


@on_qemu
def test_deep_pointwise_pairs_match_tflm_under_qemu(tmp_path, always_fuse):
    """16 chunks unrolled (MF_PAIR_CHUNKS): a 16-chunk window with no turn test, longer ones in turns
    of 16 (the first whole at the first chunk, or partial), with and without the short windows'
    skipped test, on the M4 and M7 loops."""
    runs = deep_runs()
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        for short in (1, 0):
            picked = [r for r in runs if short or r.call.params["depth"] > fast_gemm.PAIR_SHORT]
            failures = placements.run(picked, tmp_path / f"{board}-{short}", board,
                                      defines={"MF_PAIR_CHUNKS": 16, "MF_PAIR_SHORT": short})
            assert not failures, "\n".join(failures)


# -- the even channels' fixed right shift (fast_gemm.pair_fix, MF_PAIR_FIX) --------------------------

def fixed_table(rng, shifts, out_zp: int = -128, depth: int = 16):
    """int8 weights [4 n, depth] and mf_fast.h's channel table for channels with TFLite right shifts
    `shifts` (multipliers in [2^30, 2^31), biases up to 2^12; the last channel dead: multiplier 0),
    a channel's weights as large as its shift lets pair_fix's left shift keep its sums in an int32."""
    n = len(shifts)
    limit = np.minimum(127, 2 ** (np.asarray(shifts) + 13) // (128 * depth) - 32).clip(1)
    taps = rng.integers(-limit[:, None], limit[:, None] + 1, (n, depth))
    bias = rng.integers(-4096, 4097, n)
    mult = rng.integers(2**30, 2**31, n)
    mult[-1] = 0
    rows = fast.fast_quant(bias, mult, -np.asarray(shifts), out_zp, taps)
    return taps, rows, bias, mult


def test_the_fixed_form_requantizes_each_even_channel_as_tflite_does():
    """pair_fix's even channels, LSL by k, SMMLA's high word plus R, then >> MF_PAIR_FIX, give TFLite's
    value at output zero point -128 for accumulators across each channel's whole reachable range
    (|bias| + 128 sum|w|, its ends included), right shifts 1 to 15; a dead channel its constant."""
    from microfuse.fixedpoint import mul_by_quantized_multiplier

    rng = np.random.default_rng(SEED + 30)
    shifts = [1, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 4, 9, 2]
    taps, rows, bias, mult = fixed_table(rng, shifts)
    blocks, _ = fast.quant_blocks(rows)
    params = {"depth": taps.shape[1], "weights": fast_gemm.pair_stream(taps, blocks)}
    assert fast_gemm.pair_fixable(params)
    _, legacy = fast_gemm._stream(params)
    fixed = fast_gemm.pair_fix(legacy)
    depth = taps.shape[1]
    bound = np.abs(bias) + 128 * np.abs(taps).sum(axis=1)
    checked = 0
    for b in range(len(fixed)):
        for j in (0, 2):
            c = 4 * b + j
            m, big_r = int(fixed[b, 4 + depth + 2 * j]), int(fixed[b, 4 + depth + 2 * j + 1])
            word = -2 + j // 2
            k = int(fixed[b, word]) & 0xFF
            assert (int(fixed[b, word]) ^ int(legacy[b, word])) & ~0xFF == (fast_gemm.PAIR_FIXED if j == 0 else 0)
            accs = np.unique(np.concatenate([rng.integers(-bound[c], bound[c] + 1, 4000),
                                             [-bound[c], bound[c], 0, -1, 1]]))
            for a in accs.tolist():
                shifted = ((a << k) + 2**31) % 2**32 - 2**31
                got = max(-128, min(127, ((shifted * m + big_r * 2**32) >> 32) >> fast_gemm.PAIR_FIX))
                want = max(-128, min(127, mul_by_quantized_multiplier(a, int(mult[c]), -shifts[c]) - 128))
                assert got == want, (c, a, shifts[c])
                checked += 1
    assert checked > 20000


def test_a_stream_keeps_its_per_channel_shifts_where_the_fixed_form_cannot_hold():
    """pair_fixable: not with ties (an output zero point other than -128), nor a right shift of
    MF_PAIR_FIX or more (k under 2), nor an accumulator that k shifts out of an int32; the build's
    config then keeps every stream as it is (MF_PAIR_KEEP 1, pair_finish leaves it)."""
    rng = np.random.default_rng(SEED + 31)

    def params_of(shifts, out_zp=-128, depth=16):
        taps, rows, _, _ = fixed_table(rng, shifts, out_zp, depth)
        return {"depth": depth, "weights": fast_gemm.pair_stream(taps, fast.quant_blocks(rows)[0])}

    ok = params_of([6, 7, 8, 9])
    assert fast_gemm.pair_fixable(ok) and fast_gemm.fix_sizes(ok) == {"MF_PAIR_FIX": 0, "MF_PAIR_KEEP": 0}
    assert not fast_gemm.pair_fixable(params_of([6, 7, 8, 9], out_zp=5))
    assert not fast_gemm.pair_fixable(params_of([fast_gemm.PAIR_FIX, 7, 8, 9]))
    assert fast_gemm.pair_fixable(params_of([fast_gemm.PAIR_FIX - 1, 7, 8, 9]))
    assert not fast_gemm.pair_fixable(params_of([1, 7, 8, 9], depth=512))  # 2^16 * 128 * 127 * 512
    kept = fast_gemm.pair_finish(ok, {"MF_PAIR_KEEP": 1})
    assert kept is ok
    fixed = fast_gemm.pair_finish(ok, {"MF_PAIR_KEEP": 0})
    assert fast_gemm.fix_sizes(fixed) == {"MF_PAIR_FIX": fast_gemm.PAIR_FIX, "MF_PAIR_KEEP": 0}
    assert fast_gemm.pair_ties(fixed) == 0
    assert fast_gemm.pair_finish(fixed, {"MF_PAIR_KEEP": 0}) is fixed  # (once)


def test_a_build_fixes_the_shifts_only_when_every_paired_conv_can_take_it(tmp_path):
    """mf_config.h: MF_PAIR_FIX 16 when every paired conv of the build is without ties (and fits),
    its streams in pair_fix's form; else 0, every stream as pair_stream made it."""
    from microfuse.pipeline import build

    rng = np.random.default_rng(SEED)
    floor = [floor_zero_point(pair_graph(rng, i)) for i in range(4)]
    rng = np.random.default_rng(SEED + 1)
    other = [pair_graph(rng, i) for i in range(4)]
    for name, picked, fix in (("floor", floor, fast_gemm.PAIR_FIX), ("mixed", floor + other, 0)):
        compiled = build(merge(picked, name), tmp_path / name)
        calls = [c for c in compiled.calls if c.kernel.startswith(KERNEL)]
        assert calls and {fast_gemm.fix_sizes(c.params)["MF_PAIR_FIX"] for c in calls} == {fix}
        assert f"#define MF_PAIR_FIX {fix}\n" in (tmp_path / name / "mf_config.h").read_text()


def fixed_runs(count: int):
    """no_ties_runs with their calls' streams in pair_fix's form (as a build of them only makes)."""
    from microfuse.lower.call import finish_calls

    runs = no_ties_runs(count)
    fit = [r for r in runs if fast_gemm.pair_fixable(r.call.params)]
    assert len(fit) >= 0.75 * len(runs)
    runs = fit
    finish_calls([r.call for r in runs])
    assert {fast_gemm.fix_sizes(r.call.params)["MF_PAIR_FIX"] for r in runs} == {fast_gemm.PAIR_FIX}
    return runs


FIXED = {"MF_PAIR_TIES": 0, "MF_PAIR_FIX": fast_gemm.PAIR_FIX}


def test_pair_conv_matches_tflm_on_host_with_fixed_shifts(tmp_path, always_fuse):
    """The portable loop's even channels in pair_fix's form (mf_pair_fixed)."""
    failures = placements.run(fixed_runs(12), tmp_path, defines=FIXED)
    assert not failures, "\n".join(failures)


@on_qemu
def test_pair_conv_matches_tflm_under_qemu_with_fixed_shifts(tmp_path, always_fuse):
    """MF_PAIR_FIX: the M4 and M7 assembly's even channels by LSL k, SMMLA, SSAT's immediate shift;
    the same streams read with per-channel shifts (MF_PAIR_FIX 0) go wrong."""
    runs = fixed_runs(12)
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        failures = placements.run(runs, tmp_path / board, board, defines=FIXED)
        assert not failures, "\n".join(failures)
    assert placements.run(runs, tmp_path / "unfixed", "qemu-mps2-an386", defines={"MF_PAIR_TIES": 0})
