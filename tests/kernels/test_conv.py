"""CONV_2D conformance: seeded random single-op models, our kernels vs TFLite Micro."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from microfuse.errors import UnsupportedError
from microfuse.ir import DType, Quant, Tensor
from microfuse.ops.attrs import ConvAttrs
from microfuse.testing.programs import RUNTIME, STRICT
from microfuse.testing.stages import lower
from tests.harness import NEEDS_ARM, Case, case_count, check_cases, failures, run_cases
from tests.kernels.cases import (act_quant, corpus_cases, feed, float_tensor, geometry, int32_bias,
                                 int8_weights, out_quant, single_op, weight_quant)

SEED = 3


def conv_case(rng: np.random.Generator, i: int, dtype: DType) -> Case:
    g = geometry(rng)
    ic, oc = int(rng.integers(1, 10)), int(rng.integers(1, 10))
    attrs = ConvAttrs(g["padding"], g["sw"], g["sh"], g["act"], g["dw"], g["dh"])
    wshape = (oc, g["kh"], g["kw"], ic)
    has_bias = rng.random() < 0.8
    if dtype == DType.FLOAT32:
        x = Tensor("input", (g["n"], g["h"], g["w"], ic), dtype)
        w = float_tensor(rng, "weights", wshape, 0.5)
        b = float_tensor(rng, "bias", (oc,)) if has_bias else None
        y = Tensor("output", (), dtype)
    else:
        per_channel = rng.random() < 0.7
        xq = act_quant(rng)
        wq = weight_quant(rng, oc, 0, per_channel)
        x = Tensor("input", (g["n"], g["h"], g["w"], ic), dtype, xq)
        w = Tensor("weights", wshape, dtype, wq, int8_weights(rng, wshape))
        b = int32_bias(rng, oc, xq, wq) if has_bias else None
        y = Tensor("output", (), dtype, out_quant(rng, xq, wq, g["kh"] * g["kw"] * ic))
    graph = single_op("CONV_2D", [x, w, b], y, attrs)
    label = f"conv{i} {dtype} in {list(x.shape)} filter {list(wshape)} {attrs}"
    return Case(label, graph, feed(rng, graph, extreme=i % 7 == 6))


@pytest.mark.parametrize("dtype", [DType.INT8, DType.FLOAT32], ids=str)
def test_conv2d_matches_tflm(dtype):
    rng = np.random.default_rng(SEED + (dtype == DType.FLOAT32))
    cases = [conv_case(rng, i, dtype) for i in range(case_count(12, 40))]
    check_cases(cases)


def test_conv2d_is_per_channel_sensitive():
    """The test itself can fail: wrong multipliers on one channel must show as a mismatch."""
    rng = np.random.default_rng(SEED)
    case = next(c for c in (conv_case(rng, i, DType.INT8) for i in range(50))
                if c.graph.ops[0].inputs[1].quant.per_axis and c.graph.outputs[0].elements > 20)
    w = case.graph.ops[0].inputs[1]
    scales = list(w.quant.scale)
    scales[0] *= 1.5
    w.quant = type(w.quant)(tuple(scales), w.quant.zero_point, w.quant.axis)
    ours = run_cases([case])
    w.quant = type(w.quant)(tuple(s / 1.5 if k == 0 else s for k, s in enumerate(scales)),
                            w.quant.zero_point, w.quant.axis)
    assert failures([case], ours) != []


def test_conv2d_lowering_folds_input_offset_into_bias():
    rng = np.random.default_rng(SEED)
    case = conv_case(rng, 0, DType.INT8)
    op = case.graph.ops[0]
    call = lower(op)
    w = op.inputs[1].data.reshape(op.inputs[1].shape[0], -1).astype(np.int64)
    raw = op.inputs[2].data if op.inputs[2] is not None else 0
    zp = op.inputs[0].quant.zero_point[0]
    assert call.kernel == "mf_conv2d_s8"
    assert np.array_equal(call.params["bias"].data, raw - zp * w.sum(axis=1))
    assert call.params["in_zero_point"] == zp
    assert call.files == ("mf_conv2d_s8.c",)


def test_conv2d_unquantized_int8_filter_is_refused():
    rng = np.random.default_rng(SEED)
    case = conv_case(rng, 0, DType.INT8)
    op = case.graph.ops[0]
    op.inputs[1].quant = None
    with pytest.raises(UnsupportedError, match="filter 'weights' must be int8 and quantized"):
        lower(op)


def test_corpus_conv_ops_match_tflm():
    """Each conv op of the corpus models, alone, on random inputs."""
    cases = corpus_cases(("CONV_2D",), np.random.default_rng(SEED))
    assert cases
    check_cases(cases)


def test_activation_clamp_is_quantized_in_float32_like_tflite():
    """1 / 0.011695906519889832 is 85.49999936 in double but 85.5 in float32: TFLite computes
    the RELU_N1_TO_1 clamp in float32, so the clamp is [-86, 86], not [-85, 85]."""
    rng = np.random.default_rng(SEED)
    scale = 0.011695906519889832
    xq, wq = Quant((0.05,), (0,)), Quant((0.01,), (0,))
    x = Tensor("input", (1, 2, 2, 4), DType.INT8, xq)
    w = Tensor("weights", (8, 1, 1, 4), DType.INT8, wq, int8_weights(rng, (8, 1, 1, 4)))
    y = Tensor("output", (), DType.INT8, Quant((scale,), (0,)))
    graph = single_op("CONV_2D", [x, w, None], y, ConvAttrs("VALID", 1, 1, "RELU_N1_TO_1"))
    assert (lower(graph.ops[0]).params["act_min"], lower(graph.ops[0]).params["act_max"]) == (-86, 86)
    case = Case("clamp", graph, [rng.integers(-128, 128, size=x.shape).astype(np.int8)])
    ours = run_cases([case])
    assert ours[0].max() == 86 and ours[0].min() == -86
    assert failures([case], ours) == []


# -- every C source of the MAC families compiles clean -----------------------------------------

FAMILY_SOURCES = sorted(p for pattern in ("mf_conv2d_*.c", "mf_dwconv2d_*.c", "mf_fc_*.c", "mf_pool_*.c")
                        for p in (RUNTIME / "src").glob(pattern))
ARM = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]


def _compile_all(cc: str, flags: list[str], tmp: Path) -> None:
    """One compiler run over every source (objects land in tmp)."""
    assert FAMILY_SOURCES, "no kernel sources found"
    cmd = [cc, *STRICT, "-O2", *flags, "-I", str(RUNTIME / "include"), "-c", *map(str, FAMILY_SOURCES)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
    assert done.returncode == 0, done.stderr
    assert len(list(tmp.glob("*.o"))) == len(FAMILY_SOURCES)


def test_sources_compile_clean_with_gcc(tmp_path):
    _compile_all("gcc", [], tmp_path)


@pytest.mark.qemu
@NEEDS_ARM
def test_sources_compile_clean_with_arm_gcc(tmp_path):
    _compile_all("arm-none-eabi-gcc", ARM, tmp_path)
