"""Fast int8 kernels (runtime_c/include/mf_fast.h, lower/fast.py) vs TFLite Micro: the portable C
path on the host (sanitizers on) and the DSP path under QEMU mps2-an386 (Cortex-M4F)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from _batch import merge
from lowered_runner import (act_quant, cases_count, geometry, int8_weights, int32_bias, out_quant,
                            single_op, weight_quant)
from microfuse import lower, oracle
from microfuse.build import Options, build
from microfuse.fixedpoint import mul_by_quantized_multiplier
from microfuse.ir import DType, Graph, Tensor
from microfuse.lower import fast
from microfuse.ops.attrs import ConvAttrs, DepthwiseAttrs, FullyConnectedAttrs
from microfuse.testing.host import compile_program
from microfuse.tflite.writer import write

SEED = 11
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
FAST = {"mf_conv2d_s8_gemm", "mf_dwconv2d_s8_dsp", "mf_fc_s8_dsp"}


def conv_graph(rng, i: int) -> Graph:
    g = geometry(rng)
    ic, oc = int(rng.choice([1, 3, 4, 8, 16])), int(rng.integers(1, 11))
    if i % 4 == 0:  # pointwise, the GEMM's fast path
        g.update(kh=1, kw=1, sh=1, sw=1, padding="VALID")
        ic = int(rng.choice([4, 8, 16, 32]))
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
    attrs = DepthwiseAttrs(g["padding"], g["sw"], g["sh"], 1, g["act"], g["dw"], g["dh"])
    xq, wq = act_quant(rng), weight_quant(rng, c, 3, rng.random() < 0.7)
    wshape = (1, g["kh"], g["kw"], c)
    x = Tensor("input", (g["n"], g["h"], g["w"], c), DType.INT8, xq)
    w = Tensor("weights", wshape, DType.INT8, wq, int8_weights(rng, wshape))
    b = int32_bias(rng, c, xq, wq)  # TFLM's depthwise Prepare crashes on a bias-less op
    y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, g["kh"] * g["kw"]))
    return single_op("DEPTHWISE_CONV_2D", [x, w, b], y, attrs)


def fc_graph(rng, i: int) -> Graph:
    rows, depth, units = int(rng.integers(1, 4)), int(rng.integers(1, 70)), int(rng.integers(1, 12))
    xq, wq = act_quant(rng), weight_quant(rng, units, 0, i % 3 == 0)
    act = str(rng.choice(["NONE", "RELU", "RELU6"]))
    x = Tensor("input", (rows, depth), DType.INT8, xq)
    w = Tensor("weights", (units, depth), DType.INT8, wq, int8_weights(rng, (units, depth)))
    b = int32_bias(rng, units, xq, wq) if rng.random() < 0.8 else None
    y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, depth))
    return single_op("FULLY_CONNECTED", [x, w, b], y, FullyConnectedAttrs(act, 0, False))


def cases(count_local: int, count_ci: int = 30) -> Graph:
    rng = np.random.default_rng(SEED)
    n = cases_count(count_local, count_ci)
    graphs = [make(rng, i) for make in (conv_graph, dw_graph, fc_graph) for i in range(n)]
    return merge(graphs, "fast")


def feeds(graph: Graph, samples: int = 2) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(SEED + 1)
    return [[rng.integers(-128, 128, size=t.shape).astype(np.int8) for t in graph.inputs]
            for _ in range(samples)]


def assert_exact(graph: Graph, got_samples, samples) -> None:
    model = write(graph)
    for s, feed in enumerate(samples):
        want = oracle.run(model, feed)
        for k, (got, exp) in enumerate(zip(got_samples[s], want)):
            op = graph.ops[k]
            got = np.asarray(got).reshape(-1)
            bad = np.flatnonzero(got != np.asarray(exp).reshape(-1))
            assert bad.size == 0, (f"case {k} {op.kind} {[list(t.shape) for t in op.inputs if t is not None]}"
                                   f" sample {s}: {bad.size} of {got.size} differ")


def fast_share(compiled) -> float:
    return sum(c.kernel in FAST for c in compiled.calls) / len(compiled.calls)


def test_fast_kernels_match_tflm_on_host(tmp_path):
    graph = cases(8)
    samples = feeds(graph)
    compiled = build(graph, tmp_path / "lib", Options(name="fast", optimize="speed", fuse=False))
    assert fast_share(compiled) > 0.9, sorted({c.kernel for c in compiled.calls})
    program = compile_program(tmp_path / "lib", "fast", compiled.graph, tmp_path / "prog", sanitize=True)
    assert_exact(graph, program.run(samples), samples)


def qemu_ready() -> bool:
    return all(shutil.which(t) for t in ("arm-none-eabi-gcc", "qemu-system-arm"))


@pytest.mark.qemu
def test_fast_kernels_match_tflm_under_qemu_m4(tmp_path):
    """The DSP path (SMLAD, inline assembly) on Cortex-M4F."""
    if not qemu_ready() and not CI:
        pytest.skip("arm-none-eabi-gcc or qemu-system-arm missing")
    from microfuse.boards import load_board
    from microfuse.targets.firmware import build_firmware
    from microfuse.targets.qemu import QemuSession

    graph = cases(6, 20)
    samples = feeds(graph)
    compiled = build(graph, tmp_path / "lib", Options(name="fast", optimize="speed", fuse=False))
    assert fast_share(compiled) > 0.9
    board = load_board("qemu-mps2-an386")
    elf = build_firmware(board, tmp_path / "lib", "fast", tmp_path / "fw")
    got = []
    with QemuSession(board, elf) as s:
        for feed in samples:
            outs, _ = s.invoke(feed)
            got.append([np.frombuffer(o, np.int8) for o in outs])
    assert_exact(graph, got, samples)


MODELS = Path(__file__).resolve().parents[2].parent / "shared" / "models"
MLPERF = ["mlperf_kws_dscnn_int8", "mlperf_vww_mobilenetv1_96_int8", "mlperf_ic_resnet8_int8",
          "mlperf_ad_autoencoder_int8"]


@pytest.mark.qemu
@pytest.mark.parametrize("model", MLPERF)
def test_mlperf_models_are_bit_exact_with_fast_kernels_under_qemu_m4(tmp_path, model):
    if not qemu_ready() and not CI:
        pytest.skip("arm-none-eabi-gcc or qemu-system-arm missing")
    from microfuse.boards import load_board
    from microfuse.targets.firmware import build_firmware
    from microfuse.targets.qemu import QemuSession

    path = MODELS / f"{model}.tflite"
    compiled = build(path, tmp_path / "lib", Options(name="m", optimize="speed"))
    assert any(c.kernel.startswith(tuple(FAST)) for c in compiled.calls)
    board = load_board("qemu-mps2-an386")
    elf = build_firmware(board, tmp_path / "lib", "m", tmp_path / "fw")
    rng = np.random.default_rng(SEED)
    samples = [[rng.integers(-128, 128, size=t.shape).astype(np.int8) for t in compiled.graph.inputs]
               for _ in range(2)]
    with QemuSession(board, elf) as s:
        for feed in samples:
            outs, count = s.invoke(feed)
            want = oracle.run(path.read_bytes(), feed)
            assert [bytes(o) for o in outs] == [np.asarray(w).astype(np.int8).tobytes() for w in want]
            assert count > 0


def test_optimize_size_keeps_the_reference_kernels():
    graph = cases(2)
    with lower.optimizing("size"):
        kernels = {lower.lower(op).kernel for op in graph.ops}
    assert not kernels & FAST
    with lower.optimizing("balanced"):
        kernels = {lower.lower(op).kernel for op in graph.ops}
    assert "mf_dwconv2d_s8_rows3x3" not in kernels and kernels & FAST


def test_pair_words_matches_sxtb16_order():
    w = np.array([[1, -2, 3, -4, 5, 6, 7, 8]], np.int8)
    words = fast.pair_words(w).view("<i2").reshape(-1)
    assert words.tolist() == [1, 3, -2, -4, 5, 7, 6, 8]


def test_shortcut_requantization_equals_tflite_where_fast_quant_accepts():
    """mf_fast_requant's formula (in Python) against TFLite's double rounding, on the extreme
    accumulators fast_quant must allow for, and refusal where it cannot prove it."""
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
            assert shift >= 0 or fast.constant_output(int(bias[0]), mult, shift, 0) is None or True
            continue
        b, m, lsh, rsh, rnd = (int(v) for v in table[0])
        span = 128 * int(np.abs(taps.astype(np.int64)).sum())
        for acc in (b - span, b + span, b, int(rng.integers(b - span, b + span + 1))):
            x = ((acc << lsh) + 2**31) % 2**32 - 2**31
            r = (x * m + 2**31) >> 32
            ours = (r + rnd + (r >> 31)) >> rsh
            assert ours == mul_by_quantized_multiplier(acc, mult, shift) + zp, (acc, mult, shift)
            checked += 1
    assert checked > 100


def test_dead_channels_become_constants():
    taps = np.zeros((2, 8), np.int8)
    table = fast.fast_quant(np.array([2**30, 5]), np.array([0, 2**30]), np.array([0, -31]), -3, taps)
    assert table is not None
    assert table[0].tolist() == [2**30, 0, 0, 1, 1 + 2 * (0 - 3)]
    assert table[1][1] == 0  # 5 * 2^-32 rounds to 0 for every reachable accumulator
