"""mf_conv2d_s8_narrow (convs on 1..4 input channels through the pair kernel's block loop,
runtime_c/src/mf_conv2d_s8_narrow.c) vs TFLite Micro: strided windows up to 10x4 (KWS's first
layer) and 3x3 on RGB (VWW's), SAME and VALID padding, odd pixel counts (a lone last pixel), pixel
pairs across output rows, odd output channels, clamping activations, more channels than the stage
holds; the portable C path on the host (sanitizers on) and the assembly under QEMU mps2-an386 and
mps2-an500 (its buffer layout), each call also with its output over its input at the planner's
tightest shifts, both directions."""

from __future__ import annotations

import numpy as np

from microfuse.ir import DType, Graph, Tensor
from microfuse.lower import fast_gemm
from microfuse.ops.attrs import ConvAttrs
from microfuse.testing.modelgen import merge
from microfuse.testing.stages import lowered
from tests.harness import always_fuse, case_count, on_qemu  # noqa: F401 (a fixture)
from tests.kernels import placements
from tests.kernels.cases import ACTIVATIONS, int8_weights, random_conv

SEED = 31
KERNEL = "mf_conv2d_s8_narrow"


def narrow_graph(rng, i: int) -> Graph:
    """A conv on 1..4 input channels, strided horizontally (every sixth case not: the gemm kernel's),
    a window from 1x2 to 10x4, odd sizes and out_c; every eighth case more channels than the
    stage holds, without clamp."""
    ic = 1 + i % 4
    kh, kw = (10, 4) if i % 5 == 0 else (int(rng.integers(1, 4)), int(rng.integers(2, 4)))
    sh, sw = int(rng.integers(1, 3)), 1 if i % 6 == 5 else 2
    padding = "VALID" if rng.random() < 0.3 else "SAME"
    h, w = int(rng.integers(kh if padding == "VALID" else 2, kh + 6)), int(rng.integers(kw, 12))
    oc = int(rng.choice([1, 3, 4, 8, 13, 16, 64]))
    act = str(rng.choice(ACTIVATIONS))
    if i % 8 == 0:
        oc, act = fast_gemm.PAIR_OUT_MAX + 8, "NONE"
    attrs = ConvAttrs(padding, sw, sh, act, 1, 1)
    return random_conv(rng, (h, w), (oc, kh, kw, ic), attrs)


def prepared(count_local: int, count_ci: int = 24):
    rng = np.random.default_rng(SEED)
    n = case_count(count_local, count_ci)
    graph = merge([narrow_graph(rng, i) for i in range(n)], "narrow")
    data, want = placements.tflm_case(graph, SEED + 1)
    calls = lowered(graph)
    return calls, placements.picked(calls, data, want, lambda c: c.kernel == KERNEL)


def test_narrow_conv_matches_tflm_on_host_in_overlapping_arenas(tmp_path, always_fuse):
    calls, runs = prepared(16)
    strided = [c for c in calls if c.params.get("stride_w", 0) >= fast_gemm.NARROW_MIN_STRIDE]
    assert sum(c.kernel == KERNEL for c in strided) >= 0.8 * len(strided), {c.kernel for c in calls}
    assert {c.params["in_c"] for c in calls if c.kernel == KERNEL} == {1, 2, 3, 4}
    assert any(r.call.params.get(r.call.reverse_key or "", 0) == 1 for r in runs)
    assert any(c.kernel == KERNEL and c.params["out_c"] > fast_gemm.PAIR_OUT_MAX for c in calls)
    failures = placements.run(runs, tmp_path)
    assert not failures, "\n".join(failures)


def band_kinds(runs) -> set[tuple[str, bool]]:
    """How the calls' rows take their bands (mf_narrow_rows), with whether their rows are odd (pairs
    across rows): "ends" (rows inside the image whose middle pixels read the input, the band only
    the columns of the pixels at its ends that any pixel reads from it: "ends L", "ends R", both,
    or none), "whole" (those columns meet: the band copies the rows' columns), "padded" (rows
    partly outside the image: the whole padded band)."""
    found = set()
    for r in runs:
        p = r.call.params
        lo, room = -(-p["pad_w"] // p["stride_w"]), p["in_w"] - p["k_w"] + p["pad_w"]
        hi = -1 if room < 0 else min(room // p["stride_w"], p["out_w"] - 1)
        odd = p["out_w"] % 2 == 1
        for oy in range(p["out_h"]):
            y0 = oy * p["stride_h"] - p["pad_h"]
            inner = lo <= hi and y0 >= 0 and y0 + (p["k_h"] - 1) * p["dilation_h"] < p["in_h"]
            ends = "ends" + " L" * (lo > 0 or odd) + " R" * (hi < p["out_w"] - 1 or odd)
            kind = "padded" if not inner else ends if lo * p["stride_w"] + p["k_w"] < hi * p["stride_w"] else "whole"
            found.add((kind, odd))
    return found


def test_the_cases_take_every_kind_of_band():
    _, runs = prepared(16)
    kinds = band_kinds(runs)
    assert {(k, odd) for k in ("whole", "padded") for odd in (False, True)} <= kinds
    # both parts (odd rows: pairs across them); a part or both not built (even rows: VALID's
    # padding, VWW's SAME)
    assert {("ends L R", True), ("ends", False), ("ends R", False)} <= kinds


def test_narrow_conv_matches_tflm_on_host_in_the_m7_buffer_layout(tmp_path, always_fuse):
    """MF_WIDE_LOADS (a Cortex-M7 build's mf_config.h): both pixels' words side by side, C loop."""
    calls, runs = prepared(8)
    failures = placements.run(runs, tmp_path, defines={"MF_WIDE_LOADS": 1})
    assert not failures, "\n".join(failures)


def test_narrow_conv_matches_tflm_on_host_with_one_band_where_pairs_stay_in_rows(tmp_path, always_fuse):
    """MF_NARROW_BANDS 1 (a build whose calls have even rows, or one row): the calls that allow it."""
    calls, runs = prepared(16)
    runs = [r for r in runs if fast_gemm.narrow_sizes(r.call.params)["MF_NARROW_BANDS"] == 1]
    assert runs
    failures = placements.run(runs, tmp_path, defines={"MF_NARROW_BANDS": 1})
    assert not failures, "\n".join(failures)


def straight_runs():
    """The calls that store their blocks straight into the output (no clamp, whole blocks of 4
    channels): all that a build without staged calls has (MF_NARROW_STAGED 0, VWW's and KWS's)."""
    _, runs = prepared(16)
    runs = [r for r in runs if fast_gemm.narrow_sizes(r.call.params)["MF_NARROW_STAGED"] == 0]
    assert runs and any(r.call.params.get(r.call.reverse_key or "", 0) == 1 for r in runs)
    return runs


def test_narrow_conv_matches_tflm_on_host_in_a_build_without_staged_calls(tmp_path, always_fuse):
    """MF_NARROW_STAGED 0: the staged loop compiled out, every pair through the straight one."""
    failures = placements.run(straight_runs(), tmp_path, defines={"MF_NARROW_STAGED": 0})
    assert not failures, "\n".join(failures)


@on_qemu
def test_narrow_conv_matches_tflm_under_qemu_in_a_build_without_staged_calls(tmp_path, always_fuse):
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        failures = placements.run(straight_runs(), tmp_path / board, board, defines={"MF_NARROW_STAGED": 0})
        assert not failures, "\n".join(failures)


@on_qemu
def test_narrow_conv_matches_tflm_under_qemu_m4_in_overlapping_arenas(tmp_path, always_fuse):
    """The assembly loop (mf_pair_blocks) on Cortex-M4F."""
    calls, runs = prepared(8)
    assert any(c.kernel == KERNEL for c in calls)
    failures = placements.run(runs, tmp_path, "qemu-mps2-an386")
    assert not failures, "\n".join(failures)


@on_qemu
def test_narrow_conv_matches_tflm_under_qemu_m7_in_its_buffer_layout(tmp_path, always_fuse):
    calls, runs = prepared(8)
    failures = placements.run(runs, tmp_path, "qemu-mps2-an500")
    assert not failures, "\n".join(failures)


def test_narrow_fits_few_channels_strided_and_helium_keeps_the_gemm_kernel():
    """in_c 1..4 and a stride; more channels go to the pair / gemm kernels; a Helium core skips it."""
    from microfuse.lower import mve

    rng = np.random.default_rng(SEED)
    op = narrow_graph(rng, 1).ops[0]
    assert fast_gemm.narrow_fits(op, "balanced") and not fast_gemm.narrow_fits(op, "size")
    assert KERNEL not in mve.kernels_for(("mf_conv2d_s8_narrow", "mf_conv2d_s8_gemm"), "cortex-m55")
    _, kh, kw, _ = op.inputs[1].shape
    wshape = (4, kh, kw, 8)
    op.inputs[1] = Tensor("weights", wshape, DType.INT8, op.inputs[1].quant, int8_weights(rng, wshape))
    assert not fast_gemm.narrow_fits(op, "balanced")


def test_a_build_sizes_the_stack_buffers_by_its_largest_window_and_band(tmp_path):
    """mf_config.h defines MF_NARROW_DEPTH and MF_NARROW_BAND as the build's largest (not the bounds),
    MF_NARROW_BANDS 2 when some call's pairs straddle rows, MF_NARROW_STAGED 1 when some call
    finishes through the stage."""
    from microfuse.pipeline import build

    rng = np.random.default_rng(SEED)
    compiled = build(merge([narrow_graph(rng, i) for i in range(1, 5)], "sizes"), tmp_path / "lib")
    calls = [c for c in compiled.calls if c.kernel == KERNEL]
    assert calls
    config = (tmp_path / "lib" / "mf_config.h").read_text()
    depth = max(c.params["depth"] for c in calls)
    band = max(fast_gemm.narrow_band(*(c.params[k] for k in ("k_h", "k_w", "in_c", "out_w", "stride_w")))
               for c in calls)
    assert f"#define MF_NARROW_DEPTH {depth}\n" in config and f"#define MF_NARROW_BAND {band}\n" in config
    straddles = any(c.params["out_w"] % 2 and c.params["batches"] * c.params["out_h"] > 1 for c in calls)
    assert f"#define MF_NARROW_BANDS {1 + straddles}\n" in config
    staged = any(c.params["clamp"] or c.params["out_c"] % 4 for c in calls)
    assert f"#define MF_NARROW_STAGED {int(staged)}\n" in config


def half_chunk_graph(rng, i: int) -> Graph:
    """A narrow conv whose window is 8 n + 4 values (mf_pair_blocks enters its first chunk's second
    half), the chunk count odd or even, over an odd pixel count (a lone last pixel)."""
    ic, kh, kw = ((3, 3, 3), (3, 1, 3), (1, 5, 4), (4, 1, 1), (2, 3, 2))[i % 5]  # 28, 12, 20, 4, 12
    oc = int(rng.choice([4, 8, 13]))
    attrs = ConvAttrs("VALID", 2, 1, str(rng.choice(ACTIVATIONS)), 1, 1)
    return random_conv(rng, (kh + 2, 2 * 2 + kw), (oc, kh, kw, ic), attrs)  # 3 x 3 pixels (a batch of 1 or 2)


def half_chunk_runs():
    rng = np.random.default_rng(SEED)
    graph = merge([half_chunk_graph(rng, i) for i in range(10)], "half")
    data, want = placements.tflm_case(graph, SEED + 2)
    calls = lowered(graph)
    picked = [c for c in calls if c.kernel == KERNEL]
    assert {c.params["depth"] % 8 for c in picked} == {4}
    assert {c.params["depth"] // 4 % 4 for c in picked} == {1, 3}  # an odd and an even chunk count
    assert any(c.params["batches"] * c.params["out_h"] * c.params["out_w"] % 2 for c in picked)
    return placements.picked(calls, data, want, lambda c: c.kernel == KERNEL)


def test_narrow_conv_matches_tflm_on_host_with_half_a_first_chunk(tmp_path, always_fuse):
    failures = placements.run(half_chunk_runs(), tmp_path)
    assert not failures, "\n".join(failures)


@on_qemu
def test_narrow_conv_matches_tflm_under_qemu_with_half_a_first_chunk(tmp_path, always_fuse):
    """The stubs into a first chunk's second half, for pixel pairs and a lone pixel, on Cortex-M4F
    and Cortex-M7."""
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        failures = placements.run(half_chunk_runs(), tmp_path / board, board)
        assert not failures, "\n".join(failures)


def wide_row_runs():
    """RGB 3x3 stride 2 convs (VWW's first layer's shape) on rows of 96 and 72 bytes, VALID (the
    middle pixels read straight from word-aligned input rows, the band's parts at the odd rows'
    ends by words)."""
    rng = np.random.default_rng(SEED)
    attrs = ConvAttrs("VALID", 2, 2, "RELU6", 1, 1)
    graph = merge([random_conv(rng, (5, w), (8, 3, 3, 3), attrs) for w in (32, 24)], "wide")
    data, want = placements.tflm_case(graph, SEED + 3)
    calls = lowered(graph)
    assert [c.params["in_w"] * c.params["in_c"] for c in calls if c.kernel == KERNEL] == [96, 72]
    return placements.picked(calls, data, want, lambda c: c.kernel == KERNEL)


def test_narrow_conv_matches_tflm_on_host_with_wide_rows(tmp_path, always_fuse):
    failures = placements.run(wide_row_runs(), tmp_path)
    assert not failures, "\n".join(failures)


@on_qemu
def test_narrow_conv_matches_tflm_under_qemu_with_wide_rows(tmp_path, always_fuse):
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        failures = placements.run(wide_row_runs(), tmp_path / board, board)
        assert not failures, "\n".join(failures)


@on_qemu
def test_narrow_conv_matches_tflm_under_qemu_without_ties(tmp_path, always_fuse):
    """Outputs at zero point -128 (VWW's and KWS's first convs): MF_PAIR_TIES 0, the pair loop's
    requantization without the sign term (fast_gemm.pair_ties), on the M4 and M7 loops."""
    from tests.kernels.test_conv_pair import floor_zero_point

    rng = np.random.default_rng(SEED + 3)
    graph = merge([floor_zero_point(narrow_graph(rng, i)) for i in range(case_count(8))], "noties")
    data, want = placements.tflm_case(graph, SEED + 4)
    runs = placements.picked(lowered(graph), data, want, lambda c: c.kernel == KERNEL)
    assert runs and all(fast_gemm.narrow_sizes(r.call.params)["MF_PAIR_TIES"] == 0 for r in runs)
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        failures = placements.run(runs, tmp_path / board, board, defines={"MF_PAIR_TIES": 0})
        assert not failures, "\n".join(failures)


def ends_runs():
    """SAME convs padded on both sides, on even output rows (no pairs across rows): the rows inside
    the image read their middle pixels from the input, both ends' pixels from the band (its two
    parts, mf_narrow_part), forward and reversed."""
    rng = np.random.default_rng(SEED)
    graph = merge([random_conv(rng, (5, 31), (8, 3, 3, 3), ConvAttrs("SAME", 2, 2, "RELU6", 1, 1)),
                   random_conv(rng, (12, 19), (16, 10, 4, 1), ConvAttrs("SAME", 2, 2, "RELU", 1, 1))], "ends")
    data, want = placements.tflm_case(graph, SEED + 4)
    calls = lowered(graph)
    runs = placements.picked(calls, data, want, lambda c: c.kernel == KERNEL)
    assert len({r.call.params["in_c"] for r in runs}) == 2 and ("ends L R", False) in band_kinds(runs)
    assert any(r.call.params.get(r.call.reverse_key or "", 0) == 1 for r in runs)
    return runs


def test_narrow_conv_matches_tflm_on_host_with_both_ends_padded(tmp_path, always_fuse):
    failures = placements.run(ends_runs(), tmp_path)
    assert not failures, "\n".join(failures)


def every_count_runs():
    """Narrow convs (1 channel, a row of 4 to 160 taps: windows of 4 to 160 values, 8 n and
    8 n + 4 for every chunk count n up to 20) over an odd pixel count (a lone last pixel), so that
    mf_pair_blocks enters its unrolled chunks (MF_PAIR_CHUNKS) at every count from the end, each
    count's half chunk through its stub, and a window over 16 chunks takes its turns."""
    rng = np.random.default_rng(SEED + 7)
    attrs = ConvAttrs("VALID", 2, 1, "NONE", 1, 1)
    graph = merge([random_conv(rng, (3, kw + 4), (8, 1, kw, 1), attrs) for kw in range(4, 161, 4)], "counts")
    data, want = placements.tflm_case(graph, SEED + 8)
    calls = lowered(graph)
    picked = [c for c in calls if c.kernel == KERNEL]
    assert sorted(c.params["depth"] for c in picked) == list(range(4, 161, 4))
    return placements.picked(calls, data, want, lambda c: c.kernel == KERNEL)


def test_narrow_conv_matches_tflm_on_host_at_every_chunk_count(tmp_path, always_fuse):
    failures = placements.run(every_count_runs(), tmp_path)
    assert not failures, "\n".join(failures)


@on_qemu
def test_narrow_conv_matches_tflm_under_qemu_with_both_ends_padded(tmp_path, always_fuse):
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        failures = placements.run(ends_runs(), tmp_path / board, board)
        assert not failures, "\n".join(failures)


@on_qemu
def test_narrow_conv_matches_tflm_under_qemu_at_every_chunk_count(tmp_path, always_fuse):
    """The chunk loop unrolled to 4, 8 and 16 chunks (MF_PAIR_CHUNKS: each with the windows a build
    of it has, fast_gemm.pair_chunks) entered at each count, with and without the short windows'
    skipped test (MF_PAIR_SHORT: a build of 16 whose windows are all over 16 chunks sets 0), on
    the M4 and M7 loops."""
    runs = every_count_runs()
    depth = [r.call.params["depth"] for r in runs]
    assert {fast_gemm.pair_chunks(d) for d in depth} == {4, 8, 16}
    builds = [(chunks, 1, [r for r, d in zip(runs, depth) if fast_gemm.pair_chunks(d) <= chunks])
              for chunks in (4, 8, 16)]
    builds.append((16, 0, [r for r, d in zip(runs, depth) if d > fast_gemm.PAIR_SHORT]))
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        for chunks, short, picked in builds:
            failures = placements.run(picked, tmp_path / f"{board}-{chunks}-{short}", board,
                                      defines={"MF_PAIR_CHUNKS": chunks, "MF_PAIR_SHORT": short})
            assert not failures, "\n".join(failures)


def widened_runs():
    """The calls that store straight, whose pairs go widened ahead into consecutive buffers, then
    through one mf_pair_run (MF_PAIR_BUFS; mf_pair_next's ends): runs of several pairs, cut where
    the buffers are full (MF_NARROW_WIDE: two of the largest window's, so a call's run holds 2 to
    many pairs, cut in rows and across them), rows straddled by a pair, a lone last pixel after a
    run, windows within the unrolled chunks and over them (MF_PAIR_SHORT's last turn's start)."""
    rng = np.random.default_rng(SEED)
    shapes = (((13, 17), (8, 3, 3, 3), "SAME", 2), ((20, 13), (16, 10, 4, 1), "SAME", 2),
              ((3, 148), (4, 1, 144, 1), "VALID", 1), ((9, 12), (12, 2, 3, 2), "SAME", 2))
    graph = merge([random_conv(rng, hw, w, ConvAttrs(pad, 2, sh, "NONE", 1, 1)) for hw, w, pad, sh in shapes],
                  "widened")
    data, want = placements.tflm_case(graph, SEED + 5)
    runs = placements.picked(lowered(graph), data, want, lambda c: c.kernel == KERNEL)
    params = [r.call.params for r in runs]
    assert any(fast_gemm.narrow_sizes(p)["MF_PAIR_BUFS"] == 1 for p in params)  # (the others: tests only)
    wide = 2 * max(p["depth"] for p in params)
    pixels = [p["batches"] * p["out_h"] * p["out_w"] for p in params]
    assert any(n // 2 > wide // p["depth"] for n, p in zip(pixels, params))  # a call of several runs
    assert any(n % 2 and n > 2 for n in pixels)  # a lone last pixel after pairs
    assert any(p["out_w"] % 2 and p["batches"] * p["out_h"] > 1 for p in params)  # pairs across rows
    assert {p["depth"] > fast_gemm.PAIR_SHORT for p in params} == {False, True}
    return runs, wide


# the builds: runs widened ahead beside pointwise runs (VWW's), without them, without short
# windows (the window's end in the frame), without runs widened ahead (KWS's)
WIDENED_BUILDS = ({}, {"MF_PAIR_RUNS": 0}, {"MF_PAIR_SHORT": 0}, {"MF_PAIR_BUFS": 0})


def test_narrow_conv_matches_tflm_on_host_with_pairs_widened_ahead(tmp_path, always_fuse):
    runs, wide = widened_runs()
    for i, defines in enumerate(WIDENED_BUILDS):
        failures = placements.run(runs, tmp_path / str(i), defines={"MF_NARROW_WIDE": wide, **defines})
        assert not failures, "\n".join([str(defines)] + failures)


@on_qemu
def test_narrow_conv_matches_tflm_under_qemu_with_pairs_widened_ahead(tmp_path, always_fuse):
    """mf_pair_run's next pair widened ahead (58) on Cortex-M4F and Cortex-M7, in each build."""
    runs, wide = widened_runs()
    for board in ("qemu-mps2-an386", "qemu-mps2-an500"):
        for i, defines in enumerate(WIDENED_BUILDS):
            failures = placements.run(runs, tmp_path / board / str(i), board,
                                      defines={"MF_NARROW_WIDE": wide, **defines})
            assert not failures, "\n".join([board, str(defines)] + failures)


def test_a_build_widens_pairs_ahead_only_for_calls_of_several_pairs():
    """narrow_sizes: a straight call of NARROW_RUN_MIN pairs or more widens up to NARROW_RUN_BYTES
    of them ahead (MF_PAIR_BUFS 1); a call of fewer (KWS's cascade's rows) or a staged one, one."""
    base = min((r.call.params for r in straight_runs()), key=lambda p: p["depth"])
    depth = base["depth"]
    many = fast_gemm.narrow_sizes({**base, "batches": 1, "out_h": 48, "out_w": 48, "clamp": 0})
    assert many["MF_PAIR_BUFS"] == 1 and many["MF_NARROW_WIDE"] == fast_gemm.NARROW_RUN_BYTES // (4 * depth) * depth
    few = fast_gemm.narrow_sizes({**base, "batches": 1, "out_h": 1, "out_w": 2 * fast_gemm.NARROW_RUN_MIN - 1})
    assert few["MF_PAIR_BUFS"] == 0 and few["MF_NARROW_WIDE"] == depth
    staged = fast_gemm.narrow_sizes({**base, "batches": 1, "out_h": 48, "out_w": 48, "clamp": 1})
    assert staged["MF_PAIR_BUFS"] == 0 and staged["MF_NARROW_WIDE"] == depth
