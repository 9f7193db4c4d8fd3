"""Fast int8 kernel variants (runtime_c/include/mf_fast.h): when they fit, and their compile-time data.

The conv, depthwise and fully-connected lowerings list these kernels before the reference ones
(tables CONV_S8, DWCONV_S8, FC_S8, FC_S8_PC); `pick` takes the first that fits. A fast kernel
fits when the optimisation level allows it (--optimize size keeps the reference kernels), its
shape suits the kernel, and `fast_quant` can prove the shortcut
requantization exact for every channel. Its `prepare` turns the reference params (geometry,
folded bias, multipliers) into the fast kernel's: weights pre-extended to int16 pairs and
reordered for the kernel's loop, a per-channel table, and the scratch bytes it uses.
"""

from __future__ import annotations

import numpy as np

from ..fixedpoint import mul_by_quantized_multiplier
from ..ir import Op
from . import ConstArray, optimize_level

INT32 = 2**31
FAST_LEVELS = ("balanced", "speed")  # --optimize levels that use the fast kernels


def enabled(op: Op) -> bool:
    """Fast kernels are wanted at this level. (A fused epilogue is fine: each fast kernel has the
    fused variants of mf_fast.h, which pick() offers for such ops.)"""
    return optimize_level() in FAST_LEVELS


def pair_words(w: np.ndarray) -> np.ndarray:
    """int8 [..., 4k] -> int32 [..., 2k]: each group of four b0 b1 b2 b3 becomes the words
    (b0, b2), (b1, b3) of int16 pairs, low half first (SXTB16, SXTB16 ROR 8)."""
    w = np.asarray(w, np.int8).astype(np.int16)
    groups = w.reshape(*w.shape[:-1], -1, 4)
    lanes = groups[..., [0, 2, 1, 3]].astype("<i2")
    return np.ascontiguousarray(lanes).view("<i4").reshape(*w.shape[:-1], -1).astype(np.int32)


def pad_to(a: np.ndarray, axis: int, multiple: int) -> np.ndarray:
    extra = -a.shape[axis] % multiple
    if not extra:
        return a
    widths = [(0, 0)] * a.ndim
    widths[axis] = (0, extra)
    return np.pad(a, widths)


def fast_quant(bias: np.ndarray, mult: np.ndarray, shift: np.ndarray, out_zp: int,
               taps: np.ndarray) -> np.ndarray | None:
    """The [channels, 5] table (bias, mult, lshift, rshift, round) of mf_fast_requant, or None
    when the shortcut is not provably exact for some channel (taps: int8 weights [channels, n]).

    mf_fast_requant needs, per channel: a right shift of 1..31, |acc| * 2^(left+1) < 2^31 for
    every accumulator the int8 inputs can produce (|acc| <= |bias| + 128 * sum|w|), and no
    overflow in r + round."""
    absw = np.abs(np.asarray(taps, np.int64)).sum(axis=1)
    rows = []
    for b, m, s, aw in zip(np.asarray(bias, np.int64), np.asarray(mult, np.int64),
                           np.asarray(shift, np.int64), absw):
        b, m, s, aw = int(b), int(m), int(s), int(aw)
        left, right = max(s, 0), max(-s, 0)
        bound = (abs(b) + 128 * aw) << (left + 1)
        r_bound = (bound * m) // 2**32 + 1
        rnd = (1 << max(right - 1, 0)) + (int(out_zp) << right)
        if 1 <= right <= 31 and bound < INT32 and r_bound + abs(rnd) + 1 < INT32:
            rows.append((b, m, left + 1, right, rnd))
            continue
        const = constant_output(b, m, s, aw)
        if const is None:
            return None
        # A channel whose every reachable accumulator requantizes to `const` (dead channels:
        # zero multiplier, or a huge bias with a tiny scale): multiplier 0, (1 + 2 v) >> 1 = v.
        rows.append((b, 0, 0, 1, 1 + 2 * (const + int(out_zp))))
    return np.array(rows, np.int64).astype(np.int32).reshape(-1, 5)


def constant_output(bias: int, mult: int, shift: int, abs_w: int) -> int | None:
    """The requantized value if it is the same for every accumulator the int8 inputs can produce
    (|acc - bias| <= 128 * sum|w|), else None. TFLite's requantization is monotonic in the
    accumulator when it does not shift left (no wrap-around), so the two ends decide."""
    if mult == 0:
        return 0
    lo, hi = bias - 128 * abs_w, bias + 128 * abs_w
    if shift > 0 or lo < -INT32 or hi >= INT32:
        return None
    a = mul_by_quantized_multiplier(lo, mult, shift)
    return a if a == mul_by_quantized_multiplier(hi, mult, shift) else None


def quant_of(params: dict, taps: np.ndarray) -> np.ndarray | None:
    """fast_quant from a reference kernel's params (bias / mult / shift arrays or scalars)."""
    n = taps.shape[0]
    mult, shift = params["mult"], params["shift"]
    mult = mult.data if isinstance(mult, ConstArray) else np.full(n, mult)
    shift = shift.data if isinstance(shift, ConstArray) else np.full(n, shift)
    return fast_quant(params["bias"].data, mult, shift, params["out_zero_point"], taps)


def even_rows(table: np.ndarray) -> np.ndarray:
    """Pad the channel table to an even count (the kernels compute channels two at a time)."""
    return table if len(table) % 2 == 0 else np.concatenate([table, table[-1:]])


# -- CONV_2D: mf_conv2d_s8_gemm ---------------------------------------------------------------

GEOMETRY = ("batches", "in_h", "in_w", "in_c", "out_h", "out_w", "out_c", "k_h", "k_w",
            "stride_h", "stride_w", "dilation_h", "dilation_w", "pad_h", "pad_w")


def conv_taps(op: Op) -> np.ndarray:
    w = np.asarray(op.inputs[1].data, np.int8)
    return w.reshape(w.shape[0], -1)


def conv_gemm_fits(op: Op) -> bool:
    from .conv import requant_params  # conv.py lists this kernel: import late

    if not enabled(op):
        return False
    taps = conv_taps(op)
    return quant_of(requant_params(op, op.inputs[1], 0, taps), taps) is not None


def conv_gemm_prepare(op: Op, ref: dict) -> tuple[dict, int]:
    """mf_conv2d_s8_gemm params and scratch bytes from the reference kernel's params."""
    taps = conv_taps(op)
    table = quant_of(ref, taps)
    oc = taps.shape[0]
    w = pad_to(pad_to(taps, 1, 4), 0, 2)  # [oc even, depth]
    depth = w.shape[1]
    words = pair_words(w).reshape(-1, 2, depth // 4, 2).transpose(0, 2, 1, 3)
    pointwise = int(ref["k_h"] == 1 and ref["k_w"] == 1 and ref["stride_h"] == 1
                    and ref["stride_w"] == 1 and ref["pad_h"] == 0 and ref["pad_w"] == 0
                    and ref["in_c"] % 4 == 0 and ref["in_h"] == ref["out_h"] and ref["in_w"] == ref["out_w"])
    params = {k: ref[k] for k in GEOMETRY}
    params.update(depth=depth, pointwise=pointwise, in_zero_point=ref["in_zero_point"],
                  act_min=ref["act_min"], act_max=ref["act_max"],
                  weights=ConstArray("weights", words.reshape(-1)),
                  quant=ConstArray("quant", even_rows(table).reshape(-1)))
    return params, depth * 4 + depth + oc


# -- DEPTHWISE_CONV_2D: mf_dwconv2d_s8_rows -------------------------------------------------------

def dw_taps(op: Op) -> np.ndarray:
    """The depthwise weights as [channels, k_h * k_w]."""
    w = np.asarray(op.inputs[1].data, np.int8)
    return w.reshape(-1, w.shape[3]).T


def dw_rows_fits(op: Op) -> bool:
    from .conv import depth_multiplier, requant_params  # conv.py lists this kernel: import late

    if not enabled(op) or depth_multiplier(op) != 1 or op.inputs[0].shape[3] % 4:
        return False
    taps = dw_taps(op)
    return quant_of(requant_params(op, op.inputs[1], 3, taps), taps) is not None


def dw_rows3x3_fits(op: Op) -> bool:
    return (optimize_level() == "speed" and op.inputs[1].shape[1:3] == (3, 3)
            and op.attrs.dilation_w == 1 and dw_rows_fits(op))


def dw_span(ref: dict) -> int:
    return (ref["out_w"] - 1) * ref["stride_w"] + (ref["k_w"] - 1) * ref["dilation_w"] + 1


def dw_rows_prepare(op: Op, ref: dict) -> tuple[dict, int]:
    """mf_dwconv2d_s8_rows params and scratch bytes from the reference kernel's params."""
    taps = dw_taps(op)  # [c, t]
    table = quant_of(ref, taps)
    c, t = taps.shape
    groups = taps.reshape(c // 4, 4, t).transpose(0, 2, 1)  # [g, tap, 4 channels]
    span = dw_span(ref)
    params = {k: ref[k] for k in GEOMETRY}
    params.update(span=span, in_zero_point=ref["in_zero_point"], act_min=ref["act_min"],
                  act_max=ref["act_max"], weights=ConstArray("weights", pair_words(groups).reshape(-1)),
                  quant=ConstArray("quant", table.reshape(-1)))
    return params, ref["k_h"] * span * c * 2


# -- FULLY_CONNECTED: mf_fc_s8_dsp --------------------------------------------------------------

def fc_fits(op: Op) -> bool:
    return enabled(op) and fc_table(op) is not None


def fc_table(op: Op) -> np.ndarray | None:
    """fast_quant of a fully-connected op, from the same constants as its reference lowering."""
    from .. import quant
    from .conv import bias_of, filter_scales, per_tensor_int8

    x, w, y = op.inputs[0], op.inputs[1], op.outputs[0]
    in_scale, in_zp = per_tensor_int8(x, op, "input")
    out_scale, out_zp = per_tensor_int8(y, op, "output")
    scales = filter_scales(w, op, 0)
    taps = np.asarray(w.data, np.int8)
    b = bias_of(op)
    bias = quant.fold_input_offset(None if b is None else b.data, taps, in_zp)
    if len(scales) == 1:
        m, s = quant.dense_multiplier(in_scale, scales[0], out_scale)
        mult, shift = np.full(len(taps), m), np.full(len(taps), s)
    else:
        mult, shift = quant.conv_multipliers(in_scale, scales, out_scale, len(scales))
    return fast_quant(bias, mult, shift, out_zp, taps)


def fc_prepare(op: Op, ref: dict) -> tuple[dict, int]:
    """mf_fc_s8_dsp params and scratch bytes from the reference kernel's params."""
    taps = np.asarray(op.inputs[1].data, np.int8)
    table = quant_of(ref, taps)
    w = pad_to(pad_to(taps, 1, 4), 0, 2)  # [units even, depth4]
    depth4 = w.shape[1]
    words = pair_words(w).reshape(-1, 2, depth4 // 4, 2).transpose(0, 2, 1, 3)
    params = dict(rows=ref["rows"], depth=ref["depth"], units=ref["units"], depth4=depth4,
                  act_min=ref["act_min"], act_max=ref["act_max"],
                  weights=ConstArray("weights", words.reshape(-1)),
                  quant=ConstArray("quant", even_rows(table).reshape(-1)))
    return params, depth4 * 2
