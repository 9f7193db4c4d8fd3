"""Fast int8 kernels (runtime_c/include/mf_fast.h, lower/fast.py) vs TFLite Micro: every kernel and
fused variant, the portable C path on the host (sanitizers on) and the DSP path under QEMU
mps2-an386 (Cortex-M4F), each call also run with its output over an input at the tightest
forward and backward (reverse = 1) shifts the memory planner may choose; the MLPerf Tiny models
bit-exact under QEMU with the default build, at today's arenas (tests/figures.py)."""

from __future__ import annotations

import numpy as np
import pytest

from microfuse.pipeline import Options
from microfuse.fixedpoint import mul_by_quantized_multiplier
from microfuse.ir import DType, Graph, Op, Tensor
from microfuse.lower import ConstArray, fast
from microfuse.ops.attrs import (ActivationAttrs, ConvAttrs, DepthwiseAttrs, FullyConnectedAttrs,
                                 LeakyReluAttrs)
from microfuse.testing import inputs
from microfuse.testing.modelgen import merge
from microfuse.testing.stages import compile_model, lower, lowered
from microfuse.verify import verify
from tests import figures
from tests.conftest import model as corpus
from tests.harness import always_fuse, case_count, dense_fast, on_qemu, reference  # noqa: F401 (fixtures)
from tests.kernels import placements
from tests.kernels.cases import (act_quant, geometry, int8_weights, int32_bias, out_quant, single_op,
                                 weight_quant)

SEED = 11
FAST = ("mf_conv2d_s8_gemm", "mf_dwconv2d_s8_dsp", "mf_fc_s8_dsp")
# the two-pixel convs: tests/kernels/test_conv_pair.py, test_conv_narrow.py
ANY_FAST = (*FAST, "mf_conv2d_s8_pair", "mf_conv2d_s8_narrow")
EPILOGUES = ("", "lut", "add", "sub", "rsub", "mul", "lut_add", "add_lut")  # the last two: tables


# -- random cases ---------------------------------------------------------------------------------

def conv_graph(rng, i: int) -> Graph:
    g = geometry(rng)
    ic, oc = int(rng.choice([1, 3, 4, 8, 12, 20, 24, 36])), int(rng.choice([1, 2, 3, 4, 5, 7, 8, 12, 16]))
    if i % 4 == 0:  # pointwise
        g.update(kh=1, kw=1, sh=1, sw=1, padding="VALID")
    if i % 9 == 4:  # more channels than one stage of the finishing pass
        g.update(h=min(g["h"], 3), w=min(g["w"], 3), kh=min(g["kh"], 2), kw=min(g["kw"], 2), padding="SAME")
        oc = 132
    attrs = ConvAttrs(g["padding"], g["sw"], g["sh"], g["act"], g["dw"], g["dh"])
    xq, wq = act_quant(rng), weight_quant(rng, oc, 0, rng.random() < 0.7)
    wshape = (oc, g["kh"], g["kw"], ic)
    x = Tensor("input", (g["n"], g["h"], g["w"], ic), DType.INT8, xq)
    w = Tensor("weights", wshape, DType.INT8, wq, int8_weights(rng, wshape))
    b = int32_bias(rng, oc, xq, wq) if rng.random() < 0.8 else None
    y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, g["kh"] * g["kw"] * ic))
    return single_op("CONV_2D", [x, w, b], y, attrs)


def dw_graph(rng, i: int) -> Graph:
    g = geometry(rng)
    if i % 2 == 0:
        g.update(kh=3, kw=3, dw=1, h=max(g["h"], 2 * g["dh"] + 1), w=max(g["w"], 3))
    c = int(rng.choice([4, 8, 12, 16]))
    if i % 9 == 4:
        g.update(h=min(g["h"], 3), w=min(g["w"], 3), padding="SAME")
        c = 136
    attrs = DepthwiseAttrs(g["padding"], g["sw"], g["sh"], 1, g["act"], g["dw"], g["dh"])
    xq, wq = act_quant(rng), weight_quant(rng, c, 3, rng.random() < 0.7)
    wshape = (1, g["kh"], g["kw"], c)
    x = Tensor("input", (g["n"], g["h"], g["w"], c), DType.INT8, xq)
    w = Tensor("weights", wshape, DType.INT8, wq, int8_weights(rng, wshape))
    b = int32_bias(rng, c, xq, wq)  # TFLM's depthwise Prepare crashes on a bias-less op
    y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, g["kh"] * g["kw"]))
    return single_op("DEPTHWISE_CONV_2D", [x, w, b], y, attrs)


def fc_graph(rng, i: int) -> Graph:
    depth = int(rng.integers(1, 70))
    rows = int(rng.integers(1, 4)) if depth % 4 == 0 else 1
    units = 132 if i % 9 == 4 else int(rng.integers(1, 13))
    xq, wq = act_quant(rng), weight_quant(rng, units, 0, i % 3 == 0)
    act = str(rng.choice(["NONE", "RELU", "RELU6"]))
    x = Tensor("input", (rows, depth), DType.INT8, xq)
    w = Tensor("weights", (units, depth), DType.INT8, wq, int8_weights(rng, (units, depth)))
    b = int32_bias(rng, units, xq, wq) if rng.random() < 0.8 else None
    y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, depth))
    return single_op("FULLY_CONNECTED", [x, w, b], y, FullyConnectedAttrs(act, 0, False))


def with_epilogue(rng, graph: Graph, kind: str) -> Graph:
    """graph's op followed by `kind`: a unary op (one table: "lut"), a binary op with a new input
    ("add", "sub", "rsub": the new input minus the op's, "mul"), or steps joined by "_"."""
    for step in kind.split("_") if kind else []:
        y = graph.outputs[0]
        out = Tensor(f"after_{step}", y.shape, DType.INT8, act_quant(rng))
        inputs = list(graph.inputs)
        if step == "lut":
            op = Op("LEAKY_RELU", [y], [out], LeakyReluAttrs(float(rng.uniform(0.05, 0.5))), "leaky")
        else:
            r = Tensor("residual", y.shape, DType.INT8, act_quant(rng))
            operands = [r, y] if step == "rsub" else [y, r]
            op_kind = {"add": "ADD", "sub": "SUB", "rsub": "SUB", "mul": "MUL"}[step]
            act = ActivationAttrs(str(rng.choice(["NONE", "NONE", "RELU"])))
            op = Op(op_kind, operands, [out], act, step)
            inputs.append(r)
        op.index = len(graph.ops)
        graph = Graph([*graph.ops, op], inputs, [out], name=graph.name)
    return graph


def cases(count_local: int, count_ci: int = 30) -> Graph:
    rng = np.random.default_rng(SEED)
    n = case_count(count_local, count_ci)
    graphs = [with_epilogue(rng, make(rng, i), EPILOGUES[i % len(EPILOGUES)])
              for make in (conv_graph, dw_graph, fc_graph) for i in range(n)]
    return merge(graphs, "fast")


def prepared(count_local: int, count_ci: int = 30):
    """The cases compiled with the default optimization (balanced), each one fast call, and the
    arena scenarios of every call with TFLM's outputs."""
    graph = cases(count_local, count_ci)
    rng = np.random.default_rng(SEED + 1)
    feed = inputs.sample(graph.inputs, rng)
    data = {t.name: x for t, x in zip(graph.inputs, feed)}
    (tflm,) = reference(graph, [feed])
    want = {t.name: np.asarray(o).astype(np.int8) for t, o in zip(graph.outputs, tflm)}
    calls = lowered(graph)
    runs = []
    fast_calls = [c for c in calls if c.kernel.startswith(FAST)]
    others = [c for c in calls if c.kernel.startswith(ANY_FAST) and not c.kernel.startswith(FAST)]
    # the rest: an op whose shortcut requantization cannot be proven exact keeps its reference kernel
    assert len(fast_calls) + len(others) >= 0.9 * len(calls), {c.kernel for c in calls}
    assert len(calls) == len(graph.outputs)  # every case is one call (fused)
    for call in fast_calls:
        operands = [data[t.name] for t in call.inputs]
        label = f"{call.kernel} {call.sources[0].name}"
        runs += placements.scenarios(call, operands, want[call.outputs[0].name], label)
        runs.append(placements.strided(call, operands, want[call.outputs[0].name], label))
    return calls, runs


def suffix(epilogue: str) -> str:
    """The kernel variant of an epilogue: its binary op's, else "lut"."""
    return next((step for step in epilogue.split("_") if step != "lut"), "lut")


def variants(calls) -> set[str]:
    return {c.kernel for c in calls}


def test_fast_kernels_match_tflm_on_host_in_overlapping_arenas(tmp_path, always_fuse, dense_fast):
    calls, runs = prepared(12)
    expected = {f"{k}_{suffix(e)}" if e else k for k in FAST for e in EPILOGUES}
    assert expected <= variants(calls), expected - variants(calls)
    assert any(isinstance(c.params.get("k.addq"), ConstArray) for c in calls)  # shortcut ADD
    binary = [c for c in calls if c.kernel.endswith(("_add", "_sub", "_mul"))]
    assert any("ep.pre" in c.params for c in binary) and any("ep.post" in c.params for c in binary)
    assert any(r.call.params.get(r.call.reverse_key or "", 0) == 1 for r in runs)  # backward runs
    strided_kernels = {r.call.kernel for r in runs if "out_stride" in r.label}
    assert {k.replace(b, b + "_strided") for k in expected for b in FAST if k.startswith(b)} <= strided_kernels
    failures = placements.run(runs, tmp_path)
    assert not failures, "\n".join(failures)


@on_qemu
def test_fast_kernels_match_tflm_under_qemu_m4_in_overlapping_arenas(tmp_path, always_fuse, dense_fast):
    """The DSP path (SXTB16 / SMLAD assembly) on Cortex-M4F."""
    calls, runs = prepared(6, 30)
    assert {k for k in FAST} <= variants(calls)
    assert {f"{k}_strided" for k in FAST} <= {r.call.kernel for r in runs if "out_stride" in r.label}
    failures = placements.run(runs, tmp_path, "qemu-mps2-an386")
    assert not failures, "\n".join(failures)


# -- the MLPerf Tiny models ------------------------------------------------------------------------

MLPERF = figures.MLPERF
MAC_KINDS = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")


def kernel_calls(compiled) -> list:
    """The calls, a cascade's by its distinct band calls (ordinary kernel calls on row windows)."""
    found = []
    for c in compiled.calls:
        found += list({id(b): b for b in c.bands.values()}.values()) if hasattr(c, "bands") else [c]
    return found


@pytest.mark.parametrize("model", MLPERF)
def test_balanced_runs_fast_kernels_everywhere_at_todays_arena_and_calls(model):
    compiled = compile_model(corpus(model), Options(name="m"))
    calls = kernel_calls(compiled)
    slow = [c for c in calls if c.sources[0].kind in MAC_KINDS and not c.kernel.startswith(ANY_FAST)]
    # only the classifier head, too small for the DSP kernel's code (lower/fast.py DENSE_MACS_MIN)
    assert all((c.sources[0].kind, c.kernel) == ("FULLY_CONNECTED", "mf_fc_s8") for c in slow)
    assert all(c.macs < fast.DENSE_MACS_MIN for c in slow) and len(slow) == ("autoencoder" not in model)
    small = compile_model(corpus(model), Options(name="m", optimize="size"))
    assert compiled.plan.arena_bytes <= small.plan.arena_bytes
    figures.arena(f"{model} default build", compiled.plan.arena_bytes, figures.BUILD_ARENA[model])
    figures.at_most(f"{model} default build kernel calls", len(compiled.calls), figures.BUILD_CALLS[model], 0)
    weights = {np.asarray(v.data).tobytes(): np.asarray(v.data).nbytes for c in calls for k, v in c.params.items()
               if isinstance(v, ConstArray) and k.split(".")[-1] == "weights"}  # a cascade emits each once
    int8 = {c.sources[0].index: c.sources[0].inputs[1].nbytes for c in calls if c.sources[0].kind in MAC_KINDS}
    # conv and FC weights int8 in flash, blocked and padded, a pair conv's with its channel table
    # (lower/fast_gemm.py pair_stream); a depthwise conv's int16 lanes with the left shift folded in
    # (lower/fast.py dw_block_words)
    figures.relative(f"{model} flash weights per int8 weight", sum(weights.values()) / sum(int8.values()),
                     figures.WEIGHTS_RATIO[model], 0.0005)


def check_mlperf_on(board: str, model: str) -> None:
    """The default build of an MLPerf model uses the fast kernels and equals TFLM on `board`."""
    verdict, compiled, counts = verify(corpus(model), board, n=1, seed=SEED)
    assert any(c.kernel.startswith(ANY_FAST) for c in kernel_calls(compiled))
    assert verdict.ok, verdict.line(False)
    assert min(counts) > 0


@pytest.mark.parametrize("model", MLPERF)
@on_qemu
def test_mlperf_models_are_bit_exact_with_the_default_build_under_qemu_m4(model):
    check_mlperf_on("qemu-mps2-an386", model)


# -- compile-time data ------------------------------------------------------------------------------

def test_optimize_size_keeps_the_reference_kernels(dense_fast):
    graph = cases(2)
    kernels = {lower(op, "size").kernel for op in graph.ops if op.kind in MAC_KINDS}
    assert not {k for k in kernels if k.startswith(ANY_FAST)}
    kernels = [lower(op, "balanced").kernel for op in graph.ops if op.kind in MAC_KINDS]
    assert set(FAST) <= set(kernels) and sum(k in ANY_FAST for k in kernels) >= 0.9 * len(kernels)


def test_an_input_off_a_word_boundary_keeps_the_reference_kernel():
    """A concatenation's slice may start anywhere; the fast kernels load whole words."""
    from microfuse.views import Slice

    graph = conv_graph(np.random.default_rng(SEED), 0)
    op = graph.ops[0]
    x = op.inputs[0]
    base = Tensor("base", (x.elements + 3,), DType.INT8, x.quant)
    assert lower(op, "balanced").kernel.startswith(FAST)
    for offset, fast_kernel in ((3, False), (4, True)):
        op.inputs[0] = Slice(x.name, x.shape, x.dtype, x.quant, base=base, offset=offset,
                             rows=1, row_bytes=x.nbytes, stride=x.nbytes)
        assert lower(op, "balanced").kernel.startswith(FAST) == fast_kernel


def test_a_dense_layer_below_the_mac_threshold_keeps_the_reference_kernel():
    """A classifier head of a few hundred MACs runs the reference kernel: the DSP kernel's code
    would cost more flash than its cycles are worth (lower/fast.py DENSE_MACS_MIN)."""
    rng = np.random.default_rng(SEED)
    for units, kernel in ((16, "mf_fc_s8"), (17, "mf_fc_s8_dsp")):  # 63 x 16 = 1008, 63 x 17 = 1071 MACs
        xq, wq = act_quant(rng), weight_quant(rng, units, 0, False)
        x = Tensor("input", (1, 63), DType.INT8, xq)  # (63: not mf_fc_s8_dsp8's whole chunks)
        w = Tensor("weights", (units, 63), DType.INT8, wq, int8_weights(rng, (units, 63)))
        y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, 63))
        op = single_op("FULLY_CONNECTED", [x, w, int32_bias(rng, units, xq, wq)], y,
                       FullyConnectedAttrs("NONE", 0, False)).ops[0]
        assert (lower(op, "balanced").kernel, op.inputs[1].shape) == (kernel, (units, 63))


def test_a_channel_slice_output_picks_the_strided_fast_kernel(dense_fast):
    """A producer writing its channel slice of an eliminated concatenation keeps a fast kernel:
    the `_strided` entry point, with out_stride; a whole tensor the plain one, without."""
    from microfuse.views import Slice

    def first_fast(make, name):
        """The first random case of `make` on the plain fast kernel with several output rows."""
        rng = np.random.default_rng(SEED)
        for i in range(60):
            op = make(rng, i).ops[0]
            call = lower(op, "balanced")
            if call.kernel == name and op.outputs[0].elements > op.outputs[0].shape[-1]:
                return op, call
        raise AssertionError(f"no case runs {name}")

    for make, name in ((conv_graph, "mf_conv2d_s8_gemm"), (dw_graph, "mf_dwconv2d_s8_dsp"),
                       (fc_graph, "mf_fc_s8_dsp")):
        op, call = first_fast(make, name)
        assert call.params["out_stride"] == 0
        y = op.outputs[0]
        c = y.shape[-1]
        base = Tensor("base", (*y.shape[:-1], c + 5), DType.INT8, y.quant)
        op.outputs[0] = Slice(y.name, y.shape, y.dtype, y.quant, base=base, offset=2,
                              rows=y.elements // c, row_bytes=c, stride=c + 5)
        call = lower(op, "balanced")
        assert call.kernel == name + "_strided" and call.params["out_stride"] == c + 5
        assert call.files == (name + "_strided.c",)


def sxtb16(word: int, ror: int = 0) -> tuple[int, int]:
    """SXTB16 (with ROR #ror) of a 32-bit word: the int16 pair (low, high)."""
    b = [((word >> (8 * ((k + ror // 8) % 4))) & 0xFF) for k in range(4)]
    s = [v - 256 if v > 127 else v for v in b]
    return s[0], s[2]


def test_block_weights_interleave_int8_chunks_that_sxtb16_splits_in_order():
    taps = np.arange(-40, 40, dtype=np.int8).reshape(5, 16)[:, :12]  # 5 channels, 12 values
    words = fast.block_weights(taps, [4, 8])
    assert words.dtype == np.int32 and words.size == 2 * 4 * 12 // 4  # 2 blocks, int8 bytes
    raw = words.view(np.uint32).astype(np.int64).tolist()
    # block 0, chunk of 4: channel 1 (second word); then the 8-chunk of channel 2 (words 4+2*2..)
    assert sxtb16(raw[1]) == (taps[1, 0], taps[1, 2]) and sxtb16(raw[1], 8) == (taps[1, 1], taps[1, 3])
    assert sxtb16(raw[4 + 2 * 2 + 1], 8) == (taps[2, 9], taps[2, 11])
    assert np.all(words.view(np.int8).reshape(2, -1)[1, 16:] .reshape(4, 8)[1:] == 0)  # padded channels


def test_quant_blocks_need_one_left_shift_for_the_live_channels():
    rows = np.array([[1, 2**30, 1, 3, 4], [2, 0, 0, 1, 1], [3, 2**30, 1, 5, 16], [4, 2**30, 1, 2, 2]])
    table, lshift = fast.quant_blocks(rows)
    assert lshift == 1 and table.data.reshape(4, 4)[1].tolist() == [2**30, 0, 2**30, 2**30]
    assert table.data.reshape(4, 4)[3].tolist() == [3, 1, 5, 2]  # rshift row
    rows[3, 2] = 2
    assert fast.quant_blocks(rows) is None


def test_shortcut_requantization_equals_tflite_where_fast_quant_accepts():
    """The kernels' formula (SMMLAR, the sign of x, in Python) against TFLite's double rounding,
    on the extreme accumulators fast_quant must allow for."""
    rng = np.random.default_rng(SEED)
    checked = 0
    for _ in range(400):
        shift = int(rng.integers(-20, 2))
        mult = int(rng.integers(2**30, 2**31))
        zp = int(rng.integers(-128, 128))
        taps = rng.integers(-127, 128, size=(1, int(rng.integers(1, 2000)))).astype(np.int8)
        bias = np.array([int(rng.integers(-2**24, 2**24))])
        table = fast.fast_quant(bias, np.array([mult]), np.array([shift]), zp, taps)
        if table is None:
            continue
        b, m, lsh, rsh, rnd = (int(v) for v in table[0])
        span = 128 * int(np.abs(taps.astype(np.int64)).sum())
        for acc in (b - span, b + span, b, int(rng.integers(b - span, b + span + 1))):
            x = ((acc << lsh) + 2**31) % 2**32 - 2**31
            ours = (((x * m + 2**31) >> 32) + rnd + (x >> 31)) >> rsh
            assert ours == mul_by_quantized_multiplier(acc, mult, shift) + zp, (acc, mult, shift)
            checked += 1
    assert checked > 100


def test_residual_shortcut_is_exact_or_refused():
    """fast._shortcut: for random ADD-like rescalings it either reproduces TFLite's arithmetic on
    every int8 value or refuses (the kernel then runs the reference epilogue)."""
    rng = np.random.default_rng(SEED)
    v = np.arange(-128, 128, dtype=np.int64)
    accepted = 0
    for _ in range(200):
        off, m, s = int(rng.integers(-128, 128)), int(rng.integers(2**30, 2**31)), int(rng.integers(-12, 1))
        x = v + off
        want = np.array([mul_by_quantized_multiplier(int(t) << 20, m, s) for t in x])
        found = fast._shortcut(x, fast._reference_scale(x, 20, m, s), 20, m, s)
        if found is None:
            continue
        ls, mult, rnd, rs = found
        got = ((((x << ls) * mult + 2**31) >> 32) + rnd + ((x << ls) >> 31)) >> rs
        assert np.array_equal(got, want)
        accepted += 1
    assert accepted > 150


def test_dead_channels_become_constants():
    taps = np.zeros((2, 8), np.int8)
    table = fast.fast_quant(np.array([2**30, 5]), np.array([0, 2**30]), np.array([0, -31]), -3, taps)
    assert table is not None
    assert table[0].tolist() == [2**30, 0, 0, 1, 1 + 2 * (0 - 3)]
    assert table[1][1] == 0  # 5 * 2^-32 rounds to 0 for every reachable accumulator
