"""Lowering of REDUCE_MAX/MIN/ALL, SUM, ARG_MAX/ARG_MIN, L2_NORMALIZATION, LOG_SOFTMAX and L2_POOL_2D
(runtime_c/include/mf_reduce.h): the reductions walk MEAN's geometry (mf_mean_params); int8 SUM is
MEAN's kernel with the unscaled multiplier, which is TFLM's QuantizedMeanOrSum with compute_sum."""

from __future__ import annotations

import math

import numpy as np

from .. import fixedpoint as fp
from .. import views
from ..errors import UnsupportedError
from ..ir import DType, Op
from ..quant import quantize_multiplier
from .call import Call, ConstArray
from .common import float_act
from .kernels import WINDOW, KernelSpec, declare, make
from .pool import pool_window
from .registry import lowering

INT8, FLOAT32, BOOL = DType.INT8, DType.FLOAT32, DType.BOOL
DIMS = 6  # MF_MEAN_DIMS
SUFFIX = {INT8: "s8", FLOAT32: "f32", BOOL: "b"}

declare({"mf_arg_params": ("outer", "axis", "inner")},
        *(KernelSpec(f"mf_reduce_{k}_{t}", "mf_mean_params", "mf_reduce.c") for k in ("max", "min")
          for t in ("s8", "f32")),
        KernelSpec("mf_reduce_all_b", "mf_mean_params", "mf_reduce.c"),
        KernelSpec("mf_sum_f32", "mf_mean_params", "mf_reduce.c"),
        *(KernelSpec(f"mf_arg_{k}_{t}", "mf_arg_params", "mf_reduce.c") for k in ("max", "min")
          for t in ("s8", "f32")))


def _c_array(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def _elements(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def reduce_geometry(op: Op) -> dict[str, object]:
    """mf_mean_params' walk: the kept axes (output order) and the reduced axes, element strides."""
    shape = op.inputs[0].shape
    rank = len(shape)
    axes = sorted({int(a) % rank for a in np.asarray(op.inputs[1].data).reshape(-1)})
    strides = [_elements(shape[d + 1:]) for d in range(rank)]
    kept = [d for d in range(rank) if d not in axes]
    pad = lambda v: list(v) + [0] * (DIMS - len(v))  # noqa: E731
    return dict(n_kept=len(kept), kept_shape=_c_array(pad([shape[d] for d in kept])),
                kept_stride=_c_array(pad([strides[d] for d in kept])), n_reduced=len(axes),
                reduced_shape=_c_array(pad([shape[d] for d in axes])),
                reduced_stride=_c_array(pad([strides[d] for d in axes])),
                count=_elements([shape[d] for d in axes]))


@lowering("REDUCE_MAX", INT8, FLOAT32)
@lowering("REDUCE_MIN", INT8, FLOAT32)
@lowering("REDUCE_ALL", BOOL)
def lower_reduce(op: Op, lw) -> Call:
    src = op.inputs[0]
    name = f"mf_{op.kind.lower()}_{SUFFIX[src.dtype]}"
    return make(name, reduce_geometry(op), [src], op.outputs, [op])


@lowering("SUM", INT8, DType.INT16, FLOAT32)
def lower_sum(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    params = reduce_geometry(op)
    if src.dtype == FLOAT32:
        return make("mf_sum_f32", params, [src], [dst], [op])
    mult, shift = quantize_multiplier(float(src.quant.scale[0]) / float(dst.quant.scale[0]))
    params.update(input_zero_point=int(src.quant.zero_point[0]), output_zero_point=int(dst.quant.zero_point[0]),
                  multiplier=mult, shift=shift)
    return make("mf_mean_s16" if src.dtype == DType.INT16 else "mf_mean_s8", params, [src], [dst], [op])


@lowering("ARG_MAX", INT8, FLOAT32)
@lowering("ARG_MIN", INT8, FLOAT32)
def lower_arg(op: Op, lw) -> Call:
    src = op.inputs[0]
    shape = src.shape
    axis = int(np.asarray(op.inputs[1].data).reshape(-1)[0]) % len(shape)
    params = dict(outer=_elements(shape[:axis]), axis=shape[axis], inner=_elements(shape[axis + 1:]))
    return make(f"mf_{op.kind.lower()}_{SUFFIX[src.dtype]}", params, [src], op.outputs, [op])


declare({"mf_rows_params": ("outer", "depth", "input_zero_point")},
        KernelSpec("mf_l2_normalization_s8", "mf_rows_params", "mf_norm.c"),
        KernelSpec("mf_l2_normalization_f32", "mf_rows_params", "mf_norm.c"),
        KernelSpec("mf_log_softmax_f32", "mf_rows_params", "mf_norm.c"),
        KernelSpec("mf_l2_pool_f32", "mf_pool_f32_params", "mf_norm.c", access=WINDOW),
        defaults={"mf_rows_params": {"input_zero_point": 0}})


def _rows(op: Op) -> dict[str, int]:
    shape = op.inputs[0].shape
    return dict(outer=_elements(shape[:-1]), depth=shape[-1] if shape else 1)


@lowering("L2_NORMALIZATION", INT8, FLOAT32)
def lower_l2_normalization(op: Op, lw) -> Call:
    src = op.inputs[0]
    params = _rows(op)
    if src.dtype == INT8:
        params["input_zero_point"] = int(src.quant.zero_point[0])
    return make(f"mf_l2_normalization_{SUFFIX[src.dtype]}", params, [src], op.outputs, [op])


@lowering("LOG_SOFTMAX", FLOAT32)
def lower_log_softmax(op: Op, lw) -> Call:
    return make("mf_log_softmax_f32", _rows(op), [op.inputs[0]], op.outputs, [op])


@lowering("L2_POOL_2D", FLOAT32)
def lower_l2_pool(op: Op, lw) -> Call:
    params = dict(pool_window(op), **float_act(op), out_stride=views.element_stride(op.outputs[0]))
    return make("mf_l2_pool_f32", params, [op.inputs[0]], op.outputs, [op])


declare({"mf_log_softmax_s8_params": ("outer", "depth", "diff_min", "rev_multiplier", "rev_shift", "q5", "exp12")},
        KernelSpec("mf_log_softmax_s8", "mf_log_softmax_s8_params", "mf_norm.c"))
SCALED_DIFF_BITS = 5  # TFLM log_softmax.cc kScaledDiffIntegerBits (beta 1)


def log_softmax_tables(input_scale: float) -> dict[str, object]:
    """TFLM's PreprocessLogSoftmaxScalingExp and CalculateInputRadius, and per row-max difference
    d = 0..255 the rescaled difference (Q5.26) and its exp rescaled to Q12.19 (0 below diff_min)."""
    real = min(input_scale * (1 << (31 - SCALED_DIFF_BITS)), (1 << 31) - 1.0)
    mult, left = quantize_multiplier(real)
    if left < 0:
        raise UnsupportedError(f"LOG_SOFTMAX input scale {input_scale:g} is too small for TFLM's kernel")
    rev_mult, rev_shift = quantize_multiplier((1 << (31 - left)) / float(mult))
    diff_min = -math.floor(((1 << SCALED_DIFF_BITS) - 1) * (1 << (31 - SCALED_DIFF_BITS)) / 2.0 ** left)
    q5, exp12 = np.zeros(256, np.int32), np.zeros(256, np.int32)
    for d in range(256):
        if -d >= diff_min:
            q5[d] = fp.srdhm(fp.wrap32(-d * (1 << left)), mult)
            exp12[d] = fp.rescale(fp.exp_on_negative_values(int(q5[d]), SCALED_DIFF_BITS), 0, 12)
    return dict(diff_min=diff_min, rev_multiplier=rev_mult, rev_shift=rev_shift, q5=ConstArray("q5", q5),
                exp12=ConstArray("exp12", exp12))


@lowering("LOG_SOFTMAX", INT8)
def lower_log_softmax_s8(op: Op, lw) -> Call:
    src = op.inputs[0]
    params = dict(_rows(op), **log_softmax_tables(float(src.quant.scale[0])))
    return make("mf_log_softmax_s8", params, [src], op.outputs, [op])
