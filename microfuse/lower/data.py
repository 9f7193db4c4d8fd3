"""Lowering of data-movement ops and reductions: PAD, CONCATENATION, MEAN, SPACE_TO_BATCH_ND,
BATCH_TO_SPACE_ND (RESHAPE/SQUEEZE/EXPAND_DIMS are aliases and never lowered)."""

from __future__ import annotations

import numpy as np

from ..errors import UnsupportedError
from ..ir import DType, Op, Tensor
from ..quant import quantize_multiplier
from .call import Call
from .kernels import make
from .registry import lowering

INT8, FLOAT32 = DType.INT8, DType.FLOAT32
PAD_DIMS, MEAN_DIMS, CONCAT_MAX = 5, 6, 16  # mf_data.h limits


def _c_array(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def _suffix(t: Tensor, op: Op) -> str:
    if t.dtype == INT8:
        return "s8"
    if t.dtype == FLOAT32:
        return "f32"
    raise UnsupportedError(f"{op.where} '{op.name}': {t.dtype} is not supported")


def _ints(t: Tensor) -> list[int]:
    return [int(v) for v in np.asarray(t.data).reshape(-1)]


def _zero_point(t: Tensor) -> int:
    return int(t.quant.zero_point[0]) if t.dtype == INT8 and t.quant is not None else 0


def _elements(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


@lowering("PAD", INT8, FLOAT32)
def lower_pad(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    rank = len(src.shape)
    if rank > PAD_DIMS:
        raise UnsupportedError(f"{op.where} '{op.name}': PAD of rank {rank} (at most {PAD_DIMS})")
    if len(op.inputs) > 2 and op.inputs[2] is not None:
        raise UnsupportedError(f"{op.where} '{op.name}': PAD with a constant value input is not supported")
    pads = np.asarray(op.inputs[1].data).reshape(-1, 2)
    lead = PAD_DIMS - rank
    params = dict(in_shape=_c_array((1,) * lead + tuple(src.shape)),
                  out_shape=_c_array((1,) * lead + tuple(dst.shape)),
                  before=_c_array([0] * lead + [int(p[0]) for p in pads]),
                  pad_value=_zero_point(dst))
    return make(f"mf_pad_{_suffix(src, op)}", params, [src], [dst], [op])


@lowering("CONCATENATION", INT8, FLOAT32)
def lower_concat(op: Op, lw) -> Call:
    dst = op.outputs[0]
    if dst.dtype == INT8 and any(t.quant != dst.quant for t in op.inputs):
        # TFLM copies int8 bytes and refuses (at prepare) inputs quantized unlike the output
        raise UnsupportedError(f"{op.where} '{op.name}': int8 CONCATENATION inputs must share the output's "
                               "scale and zero point (as TFLM requires)")
    if len(op.inputs) > CONCAT_MAX:
        raise UnsupportedError(f"{op.where} '{op.name}': {len(op.inputs)} inputs (at most {CONCAT_MAX})")
    if any(t.is_const for t in op.inputs):
        raise UnsupportedError(f"{op.where} '{op.name}': CONCATENATION of constant data is not supported")
    axis = op.attrs.axis % len(dst.shape)
    outer = _elements(dst.shape[:axis])
    chunks = [_elements(t.shape[axis:]) for t in op.inputs]
    params = dict(n_inputs=len(op.inputs), outer=outer, chunk=_c_array(chunks))
    return make(f"mf_concat_{_suffix(dst, op)}", params, list(op.inputs), [dst], [op])


def mean_multiplier(s_in: float, s_out: float, count: int) -> tuple[int, int]:
    """TFLM's QuantizedMeanOrSum rescaling with 1/count folded into the multiplier."""
    mult, shift = quantize_multiplier(s_in / s_out)
    n_shift = min(count.bit_length() - 1, 32, 31 + shift)
    return int((mult << n_shift) // count), shift - n_shift


@lowering("MEAN", INT8, FLOAT32)
def lower_mean(op: Op, lw) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    rank = len(src.shape)
    if rank > MEAN_DIMS:
        raise UnsupportedError(f"{op.where} '{op.name}': MEAN of rank {rank} (at most {MEAN_DIMS})")
    axes = sorted({a % rank for a in _ints(op.inputs[1])})
    strides = [_elements(src.shape[d + 1:]) for d in range(rank)]
    kept = [d for d in range(rank) if d not in axes]
    count = _elements([src.shape[d] for d in axes])
    pad = lambda v: list(v) + [0] * (MEAN_DIMS - len(v))  # noqa: E731
    params = dict(n_kept=len(kept), kept_shape=_c_array(pad([src.shape[d] for d in kept])),
                  kept_stride=_c_array(pad([strides[d] for d in kept])), n_reduced=len(axes),
                  reduced_shape=_c_array(pad([src.shape[d] for d in axes])),
                  reduced_stride=_c_array(pad([strides[d] for d in axes])), count=count)
    if src.dtype == INT8:
        if count == 0:
            raise UnsupportedError(f"{op.where} '{op.name}': MEAN over an empty axis")
        mult, shift = mean_multiplier(float(src.quant.scale[0]), float(dst.quant.scale[0]), count)
        params.update(input_zero_point=_zero_point(src), output_zero_point=_zero_point(dst),
                      multiplier=mult, shift=shift)
    return make(f"mf_mean_{_suffix(src, op)}", params, [src], [dst], [op])


def _space_batch(op: Op, kernel: str) -> Call:
    src, dst = op.inputs[0], op.outputs[0]
    block = _ints(op.inputs[1])
    pads = _ints(op.inputs[2])
    params = dict(in_shape=_c_array(src.shape), out_shape=_c_array(dst.shape), block_h=block[0],
                  block_w=block[1], pad_top=pads[0], pad_left=pads[2],
                  # TFLM pads with an output offset it never initializes (arena garbage); the
                  # meaningful value, as in TFLite, is the output zero point
                  pad_value=_zero_point(dst))
    return make(f"{kernel}_{_suffix(src, op)}", params, [src], [dst], [op])


@lowering("SPACE_TO_BATCH_ND", INT8, FLOAT32)
def lower_space_to_batch(op: Op, lw) -> Call:
    return _space_batch(op, "mf_space_to_batch")


@lowering("BATCH_TO_SPACE_ND", INT8, FLOAT32)
def lower_batch_to_space(op: Op, lw) -> Call:
    return _space_batch(op, "mf_batch_to_space")
