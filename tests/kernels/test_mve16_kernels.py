"""The Helium layouts (lower/mve.py) vs TFLite Micro: the 16-lane GEMM (runtime_c/include/mf_gemm16.h) of
convolutions lowered for the Cortex-M55 (window runs of whole 16-value chunks: in_c a multiple of
16, or a gathered window of in_c % 4 != 0, mf_gather_mve.h) and the paired depthwise layout
(mf_dwconv2d_s8_mve8.h, channels a multiple of 8), every fused variant, forward and backward
placements, under QEMU mps3-an547 (the assembly loops), and the same calls on the host (the
portable loops, with sanitizers); the layouts chosen only for Helium cores; the -O0 build (the
intrinsics loops)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from microfuse.ir import DType, Graph, Tensor
from microfuse.lower import mve
from microfuse.ops.attrs import ConvAttrs, DepthwiseAttrs
from microfuse.testing.modelgen import merge
from microfuse.testing.programs import RUNTIME, STRICT
from microfuse.testing.stages import lowered
from tests.harness import always_fuse, case_count, on_qemu  # noqa: F401 (a fixture)
from tests.kernels import placements
from tests.kernels.cases import (act_quant, geometry, int8_weights, int32_bias, out_quant, single_op,
                                 weight_quant)
from test_fast_kernels import EPILOGUES, kernel_calls, with_epilogue
from test_mve_kernels import _parts as parts

SEED = 17
M55 = ("-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard")


def conv16_graph(rng, i: int) -> Graph:
    """A convolution whose windows suit the 16-lane layout: in_c 16 / 32 / 48 (3x3 half the time,
    pointwise a quarter), or 1 / 3 channels (a gathered window)."""
    g = geometry(rng)
    ic = int(rng.choice([16, 32, 48, 1, 3]))
    oc = int(rng.choice([4, 8, 12, 16, 5, 2]))
    if i % 2 == 0:
        g.update(kh=3, kw=3, dh=1, dw=1, h=max(g["h"], 3), w=max(g["w"], 3))
    if i % 4 == 1:
        g.update(kh=1, kw=1, sh=1, sw=1, padding="VALID")
    if ic < 4:  # the gathered window must fit MF_GATHER_MAX
        g.update(kh=min(g["kh"], 3), kw=min(g["kw"], 3))
    attrs = ConvAttrs(g["padding"], g["sw"], g["sh"], g["act"], g["dw"], g["dh"])
    xq, wq = act_quant(rng), weight_quant(rng, oc, 0, rng.random() < 0.7)
    wshape = (oc, g["kh"], g["kw"], ic)
    x = Tensor("input", (g["n"], g["h"], g["w"], ic), DType.INT8, xq)
    w = Tensor("weights", wshape, DType.INT8, wq, int8_weights(rng, wshape))
    b = int32_bias(rng, oc, xq, wq) if rng.random() < 0.8 else None
    y = Tensor("output", (), DType.INT8, out_quant(rng, xq, wq, g["kh"] * g["kw"] * ic))
    return single_op("CONV_2D", [x, w, b], y, attrs)


def dw8_graph(rng, i: int) -> Graph:
    """A depthwise conv on 8 / 16 / 24 / 32 channels (3x3 half the time), or 136 (two stages of
    the finishing pass)."""
    g = geometry(rng)
    if i % 2 == 0:
        g.update(kh=3, kw=3, dw=1, h=max(g["h"], 2 * g["dh"] + 1), w=max(g["w"], 3))
    c = int(rng.choice([8, 16, 24, 32]))
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


def prepared(count_local: int, count_ci: int = 30):
    """The cases lowered for the Cortex-M55, and the arena scenarios of every Helium-layout call."""
    rng = np.random.default_rng(SEED)
    n = case_count(count_local, count_ci)
    graph = merge([with_epilogue(rng, make(rng, i), EPILOGUES[i % len(EPILOGUES)])
                   for make in (conv16_graph, dw8_graph) for i in range(n)], "mve16")
    data, want = placements.tflm_case(graph, SEED + 1)
    calls = [c for c in lowered(graph, core="cortex-m55") if mve.lanes16(c.params)]
    assert len(calls) >= 0.8 * len(graph.outputs), "most cases should take the 16-lane layout"
    runs = []
    for call in calls:
        operands = [data[t.name] for t in call.inputs]
        label = f"{call.kernel} {call.sources[0].name}"
        runs += placements.scenarios(call, operands, want[call.outputs[0].name], label)
        runs.append(placements.strided(call, operands, want[call.outputs[0].name], label))
    return calls, runs


def test_sixteen_lane_calls_match_tflm_on_the_host(tmp_path, always_fuse):
    """The portable loops of the layout (a library built for the M55, compiled for the host)."""
    _, runs = prepared(8)
    failures = placements.run(runs, tmp_path, "host")
    assert not failures, "\n".join(failures)


@on_qemu
def test_sixteen_lane_calls_match_tflm_under_qemu_m55(tmp_path, always_fuse):
    """The assembly loops (one segment; several, read from the segment list) on Cortex-M55."""
    calls, runs = prepared(8)
    assert {c.kernel for c in calls} >= {"mf_conv2d_s8_gemm", "mf_conv2d_s8_gemm_add", "mf_dwconv2d_s8_dsp",
                                         "mf_dwconv2d_s8_dsp_add"}
    failures = []
    for k, part in enumerate(parts(runs)):  # the AN547's 512 KiB ITCM holds a part at a time
        work = tmp_path / f"part{k}"
        work.mkdir()
        failures += placements.run(part, work, "qemu-mps3-an547")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("make, kernel", [(conv16_graph, "mf_conv2d_s8_gemm"), (dw8_graph, "mf_dwconv2d_s8_dsp")])
def test_layouts_are_chosen_for_helium_cores_only(make, kernel):
    graph = make(np.random.default_rng(SEED), 0)
    for core, want in (("cortex-m55", True), ("cortex-m4", False), (None, False)):
        (call,) = lowered(graph, core=core)
        # elsewhere the DSP two-pixel conv may come first; a Helium build skips it for the GEMM
        assert call.kernel == kernel if want else call.kernel in (kernel, *mve.DSP_ONLY), core
        assert mve.lanes16(call.params) == want, core
        lshift = int(call.params["lshift"])
        assert 1 <= lshift & (mve.L16 - 1) <= 32


def test_weights_are_blocked_in_chunks_of_16():
    """[block][chunk][4 channels][16 values], channels and depth zero-padded."""
    taps = np.arange(5 * 20, dtype=np.int64).reshape(5, 20) % 251 - 125
    words = mve.fast.block_weights(taps.astype(np.int8), [16, 16])
    b = words.astype("<i4").view(np.int8).reshape(2, 2, 4, 16)
    padded = np.zeros((8, 32), np.int8)
    padded[:5, :20] = taps
    assert np.array_equal(b, padded.reshape(2, 4, 2, 16).transpose(0, 2, 1, 3))


def test_depthwise_table_puts_even_channels_first():
    """Per pair of groups: block 2k the even channels, block 2k+1 the odd ones (of every field)."""
    graph = dw8_graph(np.random.default_rng(SEED), 2)
    (plain,) = lowered(graph)
    (paired,) = lowered(graph, core="cortex-m55")
    c = graph.ops[0].inputs[0].shape[3]
    rows = [np.asarray(k.params["quant"].data).reshape(c // 4, 4, 4).transpose(0, 2, 1).reshape(c, 4)
            for k in (plain, paired)]
    order = (np.arange(c) // 8) * 8 + np.tile([0, 2, 4, 6, 1, 3, 5, 7], c // 8)
    assert np.array_equal(rows[1], rows[0][order])


def _compiles(work: Path, level: str, source: str) -> str:
    asm = work / f"k{level}.s"
    built = subprocess.run(["arm-none-eabi-gcc", *M55, level, *STRICT, "-I", str(RUNTIME / "include"), "-S",
                            str(RUNTIME / "src" / source), "-o", str(asm)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    return asm.read_text()


@on_qemu
@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_m55_builds_take_the_helium_layouts_loops(tmp_path, level):
    """-O2: the assembly loops; -O0 (r7 is the frame pointer): the intrinsics loops."""
    assert "vmladava.s8" in _compiles(tmp_path, level, "mf_conv2d_s8_gemm.c")
    dw = _compiles(tmp_path, level, "mf_dwconv2d_s8_dsp.c")
    assert "vmullb.s16" in dw and "vmovnt.i32" in dw


def test_helium_builds_skip_the_dsp_only_kernels():
    """KWS's pointwise convs take the two-pixel DSP loop on a Cortex-M4 and the 16-lane GEMM on
    the M55 (where the DSP loop would run the portable GEMM without the Helium layout)."""
    from conftest import model
    from microfuse.pipeline import Options, compile_model

    def kernels(core):
        compiled = compile_model(model("mlperf_kws_dscnn_int8"), Options(name="m", core=core))
        return {c.kernel for c in kernel_calls(compiled)}  # band calls inside the cascades too

    assert "mf_conv2d_s8_pair" in kernels("cortex-m4")
    assert not kernels("cortex-m55") & set(mve.DSP_ONLY)
