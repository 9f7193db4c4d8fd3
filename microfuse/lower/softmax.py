"""Lowering of SOFTMAX: int8 with TFLM's fixed-point arithmetic (its exp table computed here),
float32 directly."""

from __future__ import annotations

import math

import numpy as np

from .. import fixedpoint as fp
from ..errors import UnsupportedError
from ..ir import DType, Op
from ..quant import quantize_multiplier
from .call import Call, ConstArray
from .kernels import KernelSpec, declare, make
from .registry import lowering

SCALED_DIFF_INTEGER_BITS = 5  # TFLM: exp() input is Q5.26

declare({"mf_softmax_s16_params": ("outer", "depth", "input_multiplier", "input_shift", "exp_lut", "recip_lut")},
        KernelSpec("mf_softmax_s8_s16", "mf_softmax_s8_params", "mf_softmax_s16.c"),
        KernelSpec("mf_softmax_s16", "mf_softmax_s16_params", "mf_softmax_s16.c"))


def softmax_exp_table(input_scale: float, beta: float) -> np.ndarray:
    """exp_on_negative_values of every row-max difference d = 0..255 in Q0.31, 0 where TFLM skips
    the element (d beyond diff_min): as PreprocessSoftmaxScaling + CalculateInputRadius."""
    real = min(beta * input_scale * (1 << (31 - SCALED_DIFF_INTEGER_BITS)), (1 << 31) - 1.0)
    mult, left_shift = quantize_multiplier(real)
    if left_shift < 0:
        raise UnsupportedError(f"softmax input scale x beta {input_scale * beta:g} is too small for TFLM's kernel")
    radius = math.floor(((1 << SCALED_DIFF_INTEGER_BITS) - 1) * (1 << (31 - SCALED_DIFF_INTEGER_BITS))
                        / 2.0 ** left_shift)
    diff_min = -radius
    table = np.zeros(256, dtype=np.int32)
    for d in range(256):
        diff = -d
        if diff < diff_min:
            continue
        # MultiplyByQuantizedMultiplierGreaterThanOne
        rescaled = fp.srdhm(fp.wrap32(diff * (1 << left_shift)), mult)
        table[d] = fp.exp_on_negative_values(rescaled, SCALED_DIFF_INTEGER_BITS)
    return table


def _rows(op: Op) -> tuple[int, int]:
    shape = op.inputs[0].shape
    depth = int(shape[-1])
    return op.inputs[0].elements // max(depth, 1), depth


@lowering("SOFTMAX", DType.INT8)
def lower_softmax_s8(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    if dst.dtype == DType.INT16:  # softmax_common.cc: zero point -32768, scale 1/65536 within 0.1%
        if dst.quant is None or dst.quant.zero_point[0] != -32768 or \
                abs(np.float32(dst.quant.scale[0]) - np.float32(1 / 65536)) > np.float32(0.001 / 65536):
            raise UnsupportedError(f"{op.where} '{op.name}': int8 -> int16 SOFTMAX needs output scale 1/65536 "
                                   "and zero point -32768 (as TFLM)")
    elif dst.dtype != DType.INT8 or dst.quant is None or dst.quant.zero_point[0] != -128 or \
            np.float32(dst.quant.scale[0]) != np.float32(1 / 256):
        raise UnsupportedError(f"{op.where} '{op.name}': int8 SOFTMAX needs an int8 output with scale 1/256 "
                               "and zero point -128 (as TFLM)")
    if src.quant is None or len(src.quant.scale) != 1:
        raise UnsupportedError(f"{op.where} '{op.name}': SOFTMAX input needs per-tensor quantization")
    outer, depth = _rows(op)
    table = softmax_exp_table(float(src.quant.scale[0]), float(np.float32(op.attrs.beta)))
    kernel = "mf_softmax_s8" if dst.dtype == DType.INT8 else "mf_softmax_s8_s16"
    return make(kernel, dict(outer=outer, depth=depth, exp_lut=ConstArray("exp_lut", table)), [src], [dst], [op])


@lowering("SOFTMAX", DType.FLOAT32)
def lower_softmax_f32(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    outer, depth = _rows(op)
    return make("mf_softmax_f32", dict(outer=outer, depth=depth, beta=float(op.attrs.beta)),
                [src], [dst], [op])


def _roundf(x: np.ndarray) -> np.ndarray:
    """TfLiteRound on float32: halves away from zero."""
    return (np.sign(x) * np.floor(np.abs(x) + np.float32(0.5))).astype(np.float32)


def gen_lut_int16(func, lo: float, hi: float) -> np.ndarray:
    """TFLite's gen_lut<float, int16_t, int16_t> (output range [-1, 1]): 512 steps + 1, each entry
    biased by half the interpolation error at its midpoint, in float32 as TFLM computes it."""
    f = np.float32
    step = f((f(hi) - f(lo)) / f(512))
    i = np.arange(512, dtype=np.float32)
    start = (f(lo) + i * step).astype(np.float32)
    val, mid, nxt = func(start), func((start + step / f(2)).astype(np.float32)), func((f(lo) + (i + 1) * step).astype(np.float32))
    inv = f(65536.0 / 2.0)
    sample = _roundf(val * inv)
    interp = _roundf(((nxt * inv + sample) / f(2)).astype(np.float32))
    bias = _roundf(((interp - _roundf(mid * inv)) / f(2)).astype(np.float32))
    last = _roundf(func(np.array([hi], dtype=np.float32)) * inv)
    return np.clip(np.concatenate([sample - bias, last]), -32768, 32767).astype(np.int16)


def _expf(x: np.ndarray) -> np.ndarray:
    return np.exp(x.astype(np.float64)).astype(np.float32)  # correctly rounded, as glibc's expf


def _recipf(x: np.ndarray) -> np.ndarray:
    return (np.float32(1.0) / (np.float32(1.0) + x)).astype(np.float32)


@lowering("SOFTMAX", DType.INT16)
def lower_softmax_s16(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    if dst.dtype != DType.INT16 or dst.quant is None or dst.quant.zero_point[0] != 0 or \
            abs(np.float32(dst.quant.scale[0]) - np.float32(1 / 32768)) > np.float32(0.001 / 32768):
        raise UnsupportedError(f"{op.where} '{op.name}': int16 SOFTMAX needs an int16 output with scale 1/32768 "
                               "and zero point 0 (as TFLM)")
    if src.quant is None or len(src.quant.scale) != 1:
        raise UnsupportedError(f"{op.where} '{op.name}': SOFTMAX input needs per-tensor quantization")
    outer, depth = _rows(op)
    # softmax_common.cc: the input difference scaled so that [-65535, 0] is [-10, 0], in double
    mult, shift = quantize_multiplier(float(src.quant.scale[0]) * float(np.float32(op.attrs.beta)) / (10.0 / 65535.0))
    params = dict(outer=outer, depth=depth, input_multiplier=mult, input_shift=shift,
                  exp_lut=ConstArray("exp_lut", gen_lut_int16(_expf, -10.0, 0.0)),
                  recip_lut=ConstArray("recip_lut", gen_lut_int16(_recipf, 0.0, 1.0)))
    return make("mf_softmax_s16", params, [src], [dst], [op])
