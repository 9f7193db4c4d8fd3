"""Quantization arithmetic done at compile time, bit-exact with TFLite's own helpers."""

from __future__ import annotations

import math

import numpy as np

from .errors import UnsupportedError
from .ir import DType, Tensor

INT_RANGE = {DType.INT8: (-128, 127), DType.UINT8: (0, 255), DType.INT16: (-32768, 32767),
             DType.INT32: (-2**31, 2**31 - 1)}


def quantize_multiplier(real: float) -> tuple[int, int]:
    """(Q31 multiplier, shift) with real = multiplier * 2^(shift - 31), as TFLite's QuantizeMultiplier."""
    if real == 0.0:
        return 0, 0
    if not math.isfinite(real):  # absurd scales (1e38 x 1e38, x / 0): no multiplier means it
        raise UnsupportedError(f"requantization multiplier {real:g} is not finite: the scales it is "
                               "made of are out of any usable range")
    mantissa, shift = math.frexp(real)  # real = mantissa * 2^shift, 0.5 <= |mantissa| < 1
    q = int(_tf_round(mantissa * (1 << 31)))
    if q == 1 << 31:
        q //= 2
        shift += 1
    if shift < -31:  # TFLite flushes such tiny multipliers to zero
        return 0, 0
    if shift > 30:  # TFLite clamps (only for absurd scales)
        shift, q = 30, (1 << 31) - 1
    return q, shift


def quantize_multipliers(reals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel multipliers and shifts as int32 arrays."""
    pairs = [quantize_multiplier(float(r)) for r in np.asarray(reals, dtype=np.float64).reshape(-1)]
    return (np.array([p[0] for p in pairs], dtype=np.int32), np.array([p[1] for p in pairs], dtype=np.int32))


def activation_range(activation: str, t: Tensor) -> tuple[int, int]:
    """The clamp [min, max] of a fused activation in the output's quantized domain
    (TFLite's CalculateActivationRangeQuantized)."""
    lo, hi = INT_RANGE[t.dtype]
    scale, zp = t.quant.scale[0], t.quant.zero_point[0]

    def q(x: float) -> int:
        # TFLite divides in float32 (f / scale, both float) before rounding, not in double.
        return zp + int(_tf_round(float(np.float32(x) / np.float32(scale))))

    if activation == "RELU":
        return max(lo, q(0.0)), hi
    if activation == "RELU6":
        return max(lo, q(0.0)), min(hi, q(6.0))
    if activation == "RELU_N1_TO_1":
        return max(lo, q(-1.0)), min(hi, q(1.0))
    return lo, hi


def activation_range_float(activation: str) -> tuple[float, float]:
    return {"RELU": (0.0, math.inf), "RELU6": (0.0, 6.0), "RELU_N1_TO_1": (-1.0, 1.0)}.get(
        activation, (-math.inf, math.inf))


def _tf_round(x: float) -> float:
    """std::round: halves away from zero (Python's round() is banker's rounding)."""
    return math.copysign(math.floor(abs(x) + 0.5), x)


# -- convolution and dense layers (TFLite's PopulateConvolutionQuantizationParams and
#    GetQuantizedConvolutionMultipler, as TFLite Micro prepares them) --------------------------

def conv_multipliers(in_scale: float, filter_scales, out_scale: float, channels: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Per-output-channel (multiplier, shift) int32 arrays for CONV_2D / DEPTHWISE_CONV_2D:
    in_scale * filter_scale[c] / out_scale in double; one filter scale is broadcast."""
    scales = [float(s) for s in filter_scales]
    if len(scales) == 1:
        scales = scales * channels
    return quantize_multipliers(np.array([float(in_scale) * s / float(out_scale) for s in scales]))


def dense_multiplier(in_scale: float, filter_scale: float, out_scale: float) -> tuple[int, int]:
    """(multiplier, shift) of a per-tensor FULLY_CONNECTED: TFLite multiplies the input and
    filter scales in float32, then divides by the output scale in double."""
    product = float(np.float32(in_scale) * np.float32(filter_scale))
    return quantize_multiplier(product / float(out_scale))


def fold_input_offset(bias: np.ndarray | None, weights: np.ndarray, in_zero_point: int) -> np.ndarray:
    """int32 bias[c] - in_zero_point * sum(weights[c]) (weights as [channels, taps]).

    Moves the kernels' per-tap `input + input_offset` into the bias. TFLite accumulates in
    int32, and integer addition is associative, so this is exact wherever every tap is read
    (taps outside the image must read in_zero_point). Raises OverflowError if the folded
    bias leaves int32, which no real model does."""
    w = np.asarray(weights, dtype=np.int64)
    folded = -int(in_zero_point) * w.sum(axis=1)
    if bias is not None:
        folded = folded + np.asarray(bias, dtype=np.int64).reshape(-1)
    if folded.size and (folded.min() < -2**31 or folded.max() > 2**31 - 1):
        raise OverflowError("the bias with the input offset folded in does not fit in int32")
    return folded.astype(np.int32)
